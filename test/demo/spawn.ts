import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const root = fileURLToPath(new URL("../..", import.meta.url));
const tsx = `${root}node_modules/.bin/tsx`;

/** A server started as its own process, as a user would start it. */
export interface Spawned {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Stops a child: SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
export function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/**
 * Runs `examples/<entry>` with tsx (as `pnpm start` does) on port 0 and resolves once it prints
 * "listening on <url>".
 */
export function startExample(
  entry: string,
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<Spawned> {
  const child = spawn(tsx, ["--conditions=source", `examples/${entry}`], {
    cwd: root,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const output = () => text;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stopChild(child);
      reject(new Error(`${entry} did not start within ${timeoutMs} ms:\n${text}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const url = /listening on (http:\/\/[\d.]+:\d+)/.exec(text)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve({ url, child, output, stop: () => stopChild(child) });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code} before listening:\n${text}`));
    });
  });
}

/**
 * Polls `check` every 20 ms until it returns true or `timeoutMs` passes; the error says what `describe`
 * saw last.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  describe: () => unknown = () => "",
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) {
      throw new Error(`Condition not met within ${timeoutMs} ms: ${JSON.stringify(await describe())}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Examples started side by side, each under a name: see {@link startExamples}. */
export interface StartedExamples {
  /** The example started under `name`, once it listens. */
  get(name: string): Promise<Spawned>;
  /** Stops every one of them that started. */
  stopAll(): Promise<void>;
}

/**
 * Starts several examples at once: a start is mostly tsx loading modules, which one after another
 * leaves most of a machine idle. A start that fails rejects where its example is asked for.
 *
 * @example
 * const examples = startExamples({ hono: ["hono-gateway/server.ts", { UPSTREAM_URL }] });
 * const hono = await examples.get("hono");
 * await examples.stopAll();
 */
export function startExamples(
  starts: Record<string, readonly [entry: string, env: Record<string, string>]>,
  timeoutMs = 90_000,
): StartedExamples {
  const started = new Map(
    Object.entries(starts).map(([name, [entry, env]]) => [name, startExample(entry, env, timeoutMs)]),
  );
  for (const example of started.values()) example.catch(() => {}); // seen where it is asked for
  return {
    get(name) {
      const example = started.get(name);
      if (example === undefined) throw new Error(`no example started as "${name}"`);
      return example;
    },
    async stopAll() {
      const settled = await Promise.allSettled(started.values());
      await Promise.all(
        settled.map((result) => (result.status === "fulfilled" ? result.value.stop() : undefined)),
      );
    },
  };
}

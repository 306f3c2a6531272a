import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";

const INSTALL_HELP =
  "redis-server was not found on PATH; these tests start real Redis servers and never skip. " +
  "Install it: `apt-get install -y redis-server` (Debian/Ubuntu), `brew install redis` (macOS), " +
  "or put a redis-server 7.x binary on PATH.";

/** Throws with install instructions when `redis-server` cannot be run. */
export function requireRedisServer(): void {
  const probe = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(`${INSTALL_HELP} (${probe.error?.message ?? probe.stderr})`);
  }
}

/** A free TCP port on 127.0.0.1 (the kernel's pick for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** One redis-server process started by a test, on 127.0.0.1 and a port of its own. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** The running process's id, or undefined while stopped. */
  readonly pid: number | undefined;
  /** Stops the process (SIGTERM by pid, SIGKILL after 3 s) and waits for it to exit. Data is lost. */
  stop(): Promise<void>;
  /** Starts a new process on the same port (empty: nothing is saved). */
  restart(): Promise<void>;
  /** SIGKILL: the server dies at once, mid-command if it was in one; `restart()` brings a new one. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: the server hangs without closing connections. */
  pause(): void;
  resume(): void;
}

/**
 * Starts one redis-server on `port` (no persistence, with `extra` arguments, in `cwd`) and resolves
 * once it accepts connections.
 *
 * @example
 * const child = await launch(7000, ["--cluster-enabled", "yes"], dir);
 */
export function launch(port: number, extra: readonly string[] = [], cwd?: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...extra],
      { stdio: ["ignore", "pipe", "pipe"], cwd },
    );
    let output = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`redis-server on port ${port} did not start in 10 s:\n${output}`));
    }, 10_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(error.code === "ENOENT" ? new Error(INSTALL_HELP) : error);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server on port ${port} exited with ${code}:\n${output}`));
    });
  });
}

/** Resolves once the process has exited. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/**
 * Starts `redis-server` on a free port (no persistence unless `args` turn it on, e.g. `["--appendonly",
 * "yes", "--dir", dir]`) and resolves once it accepts connections.
 * Fails loudly with install instructions when redis-server is not on PATH.
 *
 * @example
 * const redis = await startRedisServer();
 * const store = new RedisStore({ url: redis.url });
 * afterAll(() => redis.stop());
 */
export async function startRedisServer(
  options: { readonly args?: readonly string[] } = {},
): Promise<RedisServer> {
  const args = options.args ?? [];
  requireRedisServer();
  let port = 0;
  let child: ChildProcess | undefined;
  for (let attempt = 0; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await launch(port, args);
    } catch (error) {
      if (attempt >= 3) throw error; // another process took the port in between: try another
    }
  }
  let current: ChildProcess | undefined = child;
  let paused = false;
  const stop = async (): Promise<void> => {
    const running = current;
    current = undefined;
    if (running === undefined || running.pid === undefined) return;
    const gone = exited(running);
    if (paused) process.kill(running.pid, "SIGCONT");
    paused = false;
    process.kill(running.pid, "SIGTERM");
    const timer = setTimeout(() => running.pid !== undefined && process.kill(running.pid, "SIGKILL"), 3_000);
    await gone;
    clearTimeout(timer);
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return current?.pid;
    },
    stop,
    async restart() {
      await stop();
      current = await launch(port, args);
    },
    async kill() {
      const running = current;
      current = undefined;
      if (running === undefined || running.pid === undefined) return;
      const gone = exited(running);
      process.kill(running.pid, "SIGKILL");
      paused = false;
      await gone;
    },
    pause() {
      if (current?.pid === undefined) return;
      process.kill(current.pid, "SIGSTOP");
      paused = true;
    },
    resume() {
      if (current?.pid === undefined) return;
      process.kill(current.pid, "SIGCONT");
      paused = false;
    },
  };
}

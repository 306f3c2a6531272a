import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository root; children start there so that `--import tsx` resolves. */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** A file of this folder tree as an absolute path, e.g. `benchFile("probes/memory.ts")`. */
export function benchFile(relative: string): string {
  return fileURLToPath(new URL(`../${relative}`, import.meta.url));
}

/** Set (and inherited by every child) when the packages under test are the built ones. */
const DIST = "LLM_SCHEDULER_BENCH_DIST";

/** From now on, this process and its children load `@llm-scheduler/*` from `dist/` (see `--dist`). */
export function useDist(): void {
  process.env[DIST] = "1";
}

/** Whether `@llm-scheduler/*` come from `dist/` rather than from their TypeScript sources. */
export function usingDist(): boolean {
  return process.env[DIST] === "1";
}

/**
 * Node flags that run a TypeScript file with gc exposed: `--import tsx` loads the TypeScript hooks;
 * `--conditions=source` makes `@llm-scheduler/*` resolve to their `src/` (left out with `--dist`).
 */
export function tsFlags(extra: readonly string[] = []): string[] {
  return [...extra, "--expose-gc", ...(usingDist() ? [] : ["--conditions=source"]), "--import", "tsx"];
}

export interface ChildOptions {
  /** More node flags, such as `--cpu-prof` or `--max-old-space-size=8192`. */
  readonly nodeFlags?: readonly string[];
  /** Kill the child after this long. @default 15 minutes */
  readonly timeoutMs?: number;
  /** Print the child's stdout as it comes (it is captured either way). @default false */
  readonly echo?: boolean;
}

/**
 * Runs a TypeScript file in a fresh Node process (own heap, own gc) and resolves with its stdout;
 * stderr goes to ours. Rejects when the child exits with a failure or runs past its timeout.
 */
export function runTs(file: string, args: readonly string[], options: ChildOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...tsFlags(options.nodeFlags), file, ...args], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
      if (options.echo === true) process.stdout.write(chunk);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 15 * 60_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else
        reject(new Error(`${file} ${args.join(" ")} exited with ${signal ?? code}\n${stdout.slice(-2_000)}`));
    });
  });
}

/** Prefix of the one stdout line through which a probe hands its result back. */
const RESULT = "BENCH_RESULT ";

/** In a probe process: hands `value` to the parent that started it with {@link runProbe}. */
export function sendResult(value: unknown): void {
  process.stdout.write(`${RESULT}${JSON.stringify(value)}\n`);
}

/** A measurement that can run in a fresh process: `bench/probes/<name>.ts` exports it as `main`. */
export type Probe = (args: readonly string[]) => Promise<unknown>;

export async function loadProbe(name: string): Promise<Probe> {
  if (!/^[a-z-]+$/.test(name)) throw new Error(`Unknown probe ${name}`);
  const module = (await import(`../probes/${name}.js`)) as { main: Probe };
  return module.main;
}

export interface ProbeOptions extends ChildOptions {
  /**
   * Run in this process instead (quick smoke runs, where starting a process per reading would cost
   * more than the reading and isolation does not matter). @default false
   */
  readonly inProcess?: boolean;
}

/** Runs probe `name` in a fresh process (or in this one) and returns what its `main` resolved with. */
export async function runProbe<T>(
  name: string,
  args: readonly string[],
  options: ProbeOptions = {},
): Promise<T> {
  if (options.inProcess === true) return (await (await loadProbe(name))(args)) as T;
  const stdout = await runTs(benchFile("probe.ts"), [name, ...args], options);
  const line = stdout.split("\n").find((text) => text.startsWith(RESULT));
  if (line === undefined) throw new Error(`probe ${name} ${args.join(" ")} printed no result`);
  return JSON.parse(line.slice(RESULT.length)) as T;
}

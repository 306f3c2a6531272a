import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import { afterAll, beforeAll, describe, it } from "vitest";
import { root } from "../demo/spawn.js";
import { type RedisServer, startRedisServer } from "../redis/redis-server.js";
import { blocksOf, readmes, type Snippet } from "./snippets.js";

const dir = join(root, "test/docs/.snippets"); // inside the repository: the workspace packages resolve
const all = readmes(root).flatMap((readme) => blocksOf(root, readme));
const runnable = all.filter((block) => block.runnable).map((block) => block.snippet);

/** Tells a server snippet's process to say when it listens (see listening.mjs). */
const LISTENING = /^snippet listening on port \d+$/m;
const probe = `--import=${join(root, "test/docs/listening.mjs")}`;

/**
 * Runs `command` to its end; a server snippet is stopped once it has listened and then run `graceMs`
 * more without failing.
 */
function run(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; graceMs?: number; timeoutMs: number },
): Promise<{ code: number | null; output: string; stillRunning: boolean }> {
  return new Promise((resolve, reject) => {
    const server = options.graceMs !== undefined;
    const env = { ...process.env, ...options.env };
    if (server) env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ""} ${probe}`.trim();
    const child = spawn(args[0]!, args.slice(1), {
      cwd: options.cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let stillRunning = false;
    let grace: NodeJS.Timeout | undefined;
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (server && grace === undefined && LISTENING.test(output)) {
        grace = setTimeout(() => {
          stillRunning = true;
          child.kill("SIGTERM");
        }, options.graceMs);
      }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      const what = server ? "did not listen" : "did not end";
      reject(new Error(`${args.join(" ")} ${what} within ${options.timeoutMs} ms:\n${output}`));
    }, options.timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      clearTimeout(grace);
      resolve({ code, output, stillRunning });
    });
  });
}

// Each snippet is its own process, and most of a run is tsx starting it or the demo running in real time:
// several at once, and the type check beside them (which gives each more time than it needs alone).
describe.concurrent("README snippets", () => {
  let sim: Upstream;
  let redis: RedisServer;
  let cwd: string;
  beforeAll(async () => {
    sim = await startUpstream({ port: 0, parallel: 8, ttftMs: 5, tokenMs: 1, prefillMsPerToken: 0 });
    redis = await startRedisServer();
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    for (const snippet of runnable) await writeFile(join(dir, snippet.file), snippet.code);
    // Run from an empty directory (what a snippet writes lands there) that has the scenario files.
    cwd = await mkdtemp(join(tmpdir(), "llm-scheduler-snippets-"));
    await symlink(join(root, "examples"), join(cwd, "examples"));
  }, 30_000);
  afterAll(async () => {
    await sim?.close();
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
    if (cwd !== undefined) await rm(cwd, { recursive: true, force: true });
  });

  it("mark the first TypeScript snippet of the root README and of every package README runnable", ({
    expect,
  }) => {
    const firsts = readmes(root)
      .filter((readme) => !readme.startsWith("examples/"))
      .map((readme) => blocksOf(root, readme)[0])
      .filter((block) => block !== undefined);
    expect(firsts.length).toBeGreaterThanOrEqual(14);
    expect(firsts.filter((block) => !block.runnable).map((block) => block.snippet.name)).toEqual([]);
  });

  it("type-check as pasted", async ({ expect }) => {
    const config = {
      extends: "../../../tsconfig.base.json",
      compilerOptions: { noEmit: true, types: ["node"] },
      include: ["*.ts"],
    };
    await writeFile(join(dir, "tsconfig.json"), JSON.stringify(config));
    const tsc = join(root, "node_modules/.bin/tsc");
    const { code, output } = await run([tsc, "-p", join(dir, "tsconfig.json")], {
      cwd: dir,
      timeoutMs: 180_000,
    });
    expect(output.replaceAll(`${dir}/`, ""), "tsc").toBe("");
    expect(code).toBe(0);
  }, 190_000);

  it.for(runnable.map((snippet): [string, Snippet] => [snippet.name, snippet]))(
    "%s runs as pasted",
    { timeout: 130_000 },
    async ([_name, snippet], { expect }) => {
      const env = { UPSTREAM_URL: sim.url, REDIS_URL: redis.url, PORT: "0" };
      const tsx = join(root, "node_modules/.bin/tsx");
      const result = await run([tsx, "--conditions=source", join(dir, snippet.file)], {
        cwd,
        env,
        graceMs: snippet.server ? 1_000 : undefined,
        timeoutMs: 120_000,
      });
      if (snippet.server) {
        expect(result.output).toMatch(LISTENING);
        expect(result.stillRunning, result.output).toBe(true); // it listened, and did not fail after
        expect(result.output).not.toMatch(/Error|error:/);
      } else {
        expect(result.code, result.output).toBe(0);
      }
    },
  );
});

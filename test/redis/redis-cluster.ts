import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exited, launch, requireRedisServer } from "./redis-server.js";

/** A local Redis Cluster of three masters (no replicas) started by a test. */
export interface RedisCluster {
  /** `redis://127.0.0.1:<port>` of each master. */
  readonly urls: readonly string[];
  readonly ports: readonly number[];
  /** Stops every node (SIGTERM) and deletes their directories. */
  stop(): Promise<void>;
}

/** True when nothing listens on `port` of 127.0.0.1. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A port whose cluster bus port (+10000) is free too, below the ephemeral range. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await isFree(port)) && (await isFree(port + 10_000))) {
      taken.add(port);
      return port;
    }
  }
}

function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} exited with ${code}:\n${output}`)),
    );
  });
}

/**
 * Starts three `redis-server --cluster-enabled yes` nodes in temporary directories and joins them with
 * `redis-cli --cluster create` (no replicas); resolves once every slot is served.
 *
 * @example
 * const cluster = await startRedisCluster();
 * const store = new RedisStore({ cluster: [...cluster.urls] });
 * afterAll(() => cluster.stop());
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  requireRedisServer();
  const dir = mkdtempSync(join(tmpdir(), "llm-cluster-"));
  const taken = new Set<number>();
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  const stop = async (): Promise<void> => {
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(children.map(exited));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      const port = await clusterPort(taken);
      const args = ["--cluster-enabled", "yes", "--cluster-config-file", `node-${port}.conf`];
      children.push(await launch(port, args, dir));
      ports.push(port);
    }
    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    await run("redis-cli", ["--cluster", "create", ...nodes, "--cluster-replicas", "0", "--cluster-yes"]);
    for (const port of ports) await untilServed(port);
  } catch (error) {
    await stop();
    throw error;
  }
  return { urls: ports.map((port) => `redis://127.0.0.1:${port}`), ports, stop };
}

/** Waits until the node says every slot is served (`cluster_state:ok`). */
async function untilServed(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const info = await run("redis-cli", ["-p", String(port), "cluster", "info"]);
    if (info.includes("cluster_state:ok")) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the cluster node on port ${port} did not reach cluster_state:ok in 10 s`);
}

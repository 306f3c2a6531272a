import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Batches, createBatches, type ItemResult } from "@llm-scheduler/batches";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { type RedisBatchStore, redisBatchStore } from "@llm-scheduler/redis";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../redis/helpers.js";
import { type RedisServer, startRedisServer } from "../redis/redis-server.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const WORKER = fileURLToPath(new URL("./batch-worker.ts", import.meta.url));
const VISIBILITY_MS = 1_500;

/** An upstream that answers every call after `delayMs` and counts the calls per custom id. */
class Upstream {
  readonly calls = new Map<string, number>();
  url = "";
  readonly server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      const id = (JSON.parse(body) as { id: string }).id;
      this.calls.set(id, (this.calls.get(id) ?? 0) + 1);
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: id }));
      }, 20);
    });
  });

  async listen(): Promise<void> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
}

async function startWorker(redisUrl: string, prefix: string, upstream: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", WORKER], {
    cwd: ROOT,
    env: {
      ...process.env,
      REDIS_URL: redisUrl,
      PREFIX: prefix,
      UPSTREAM_URL: upstream,
      VISIBILITY_MS: String(VISIBILITY_MS),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("READY")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`worker exited with ${code}: ${output}`)));
  });
  return child;
}

function items(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    customId: `item-${i}`,
    url: "/v1/chat/completions",
    body: { id: `item-${i}` },
  }));
}

async function resultsOf(batches: Batches, id: string): Promise<ItemResult[]> {
  const found: ItemResult[] = [];
  for await (const result of batches.results(id)) found.push(result);
  return found;
}

describe("durable batches across processes sharing Redis", () => {
  const workers: ChildProcess[] = [];
  let redis: RedisServer | undefined;
  let dir: string | undefined;
  let upstream: Upstream | undefined;
  let scheduler: Scheduler | undefined;
  let front: Batches | undefined;
  let store: RedisBatchStore | undefined;

  afterEach(async () => {
    for (const child of workers.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await once(child, "exit");
      }
    }
    await front?.close();
    await scheduler?.close({ timeoutMs: 100 });
    await store?.close();
    await redis?.stop();
    upstream?.server.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** Redis (persistent), an upstream, `n` workers, and an API-only batch layer in this process. */
  async function start(n: number, prefix: string) {
    dir = mkdtempSync(join(tmpdir(), "batches-redis-"));
    redis = await startRedisServer({
      args: ["--appendonly", "yes", "--appendfsync", "always", "--dir", dir],
    });
    upstream = new Upstream();
    await upstream.listen();
    for (let i = 0; i < n; i++) workers.push(await startWorker(redis.url, prefix, upstream.url));
    scheduler = createScheduler({ maxConcurrency: 1 });
    store = redisBatchStore({ url: redis.url, prefix });
    front = createBatches({
      scheduler,
      store,
      execute: async () => ({ status: 500, body: null }),
      maxInFlight: 0,
    });
    return { front, upstream, redis };
  }

  it("kill -9 of one of three workers mid-batch: every item ends exactly once, only in-flight items repeat upstream", async () => {
    const { front, upstream } = await start(3, "kill:");
    const batch = await front.create({ items: items(300), tenant: "eval" });
    await waitFor(
      async () => (await front.get(batch.id))!.requestCounts.completed >= 60,
      20_000,
      "60 items done",
    );
    workers[0]!.kill("SIGKILL");
    await once(workers[0]!, "exit");
    expect((await front.get(batch.id))!.requestCounts.completed).toBeLessThan(270); // killed mid-batch
    await waitFor(
      async () => (await front.get(batch.id))!.status === "completed",
      40_000,
      "the batch to complete",
    );
    const done = await front.get(batch.id);
    expect(done?.requestCounts).toEqual({ total: 300, completed: 300, failed: 0 });
    const results = await resultsOf(front, batch.id);
    expect(results.map((r) => r.customId).sort()).toEqual(
      items(300)
        .map((i) => i.customId)
        .sort(),
    );
    expect(results.every((r) => r.error === null && r.response?.statusCode === 200)).toBe(true);
    expect(upstream.calls.size).toBe(300);
    const repeated = [...upstream.calls.values()].filter((count) => count > 1).length;
    expect(repeated).toBeLessThanOrEqual(8); // at most what the killed worker held (maxInFlight 8)
    console.log(`kill -9 mid-batch: ${repeated} items called upstream twice`);
  });

  it("Redis restart mid-batch: the batch finishes after Redis returns", async () => {
    const { front, redis } = await start(2, "restart:");
    // enough items that the batch cannot finish while Redis stops and starts (on a fast store 160
    // items of 20 ms went by in that time)
    const batch = await front.create({ items: items(1_000), tenant: "eval" });
    await waitFor(
      async () => (await front.get(batch.id))!.requestCounts.completed >= 40,
      20_000,
      "40 items done",
    );
    await redis.restart();
    expect((await front.get(batch.id))!.requestCounts.completed).toBeLessThan(1_000); // restarted mid-batch
    await waitFor(
      async () => (await front.get(batch.id).catch(() => undefined))?.status === "completed",
      40_000,
      "the batch to complete",
    );
    const results = await resultsOf(front, batch.id);
    expect(results).toHaveLength(1_000);
    expect(new Set(results.map((r) => r.customId)).size).toBe(1_000);
    expect(results.every((r) => r.error === null)).toBe(true);
  });
});

import { type Batches, createBatches, type ExecuteContext } from "@llm-scheduler/batches";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { type RedisBatchStore, redisBatchStore } from "@llm-scheduler/redis";
import { batchKeys } from "@llm-scheduler/redis/layout";
import { afterEach, describe, expect, it } from "vitest";
import { useRedisServer, waitFor } from "../redis/helpers.js";

const redis = useRedisServer();

interface Instance {
  readonly batches: Batches;
  readonly scheduler: Scheduler;
  readonly store: RedisBatchStore;
  readonly started: string[];
  readonly aborted: string[];
}

function hanging(started: string[], aborted: string[]) {
  return (context: ExecuteContext) =>
    new Promise<never>((_, reject) => {
      started.push(context.item.customId);
      context.signal.addEventListener("abort", () => {
        aborted.push(context.item.customId);
        reject(context.signal.reason);
      });
    });
}

describe("batch instances sharing Redis", () => {
  const instances: Instance[] = [];
  afterEach(async () => {
    for (const { batches, scheduler, store } of instances.splice(0)) {
      await batches.close();
      await scheduler.close({ timeoutMs: 100 });
      await store.close();
    }
  });

  function instance(prefix: string): Instance {
    const started: string[] = [];
    const aborted: string[] = [];
    const scheduler = createScheduler({ maxConcurrency: 4 });
    const store = redisBatchStore({ url: redis.server.url, prefix });
    const batches = createBatches({
      scheduler,
      store,
      execute: hanging(started, aborted),
      maxInFlight: 3,
      pollMs: 50,
      visibilityMs: 3_000,
    });
    const made = { batches, scheduler, store, started, aborted };
    instances.push(made);
    return made;
  }

  it("keeps a finished batch for resultTtlMs, and again without expiry once retryFailed reopens it", async () => {
    const scheduler = createScheduler({ maxConcurrency: 2 });
    const store = redisBatchStore({ url: redis.server.url, prefix: "ttl:", resultTtlMs: 60_000 });
    let fail = true;
    const batches = createBatches({
      scheduler,
      store,
      execute: async () => (fail ? { status: 400, body: {} } : { status: 200, body: {} }),
      pollMs: 50,
    });
    instances.push({ batches, scheduler, store, started: [], aborted: [] });
    const batch = await batches.create({ items: [{ customId: "a", url: "/v1/chat/completions" }] });
    await waitFor(
      async () => (await batches.get(batch.id))?.status === "completed",
      5_000,
      "the batch to complete",
    );
    const key = batchKeys("ttl:").batch(batch.id);
    const ttl = await store.client.pttl(key);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    fail = false;
    await batches.retryFailed(batch.id);
    expect(await store.client.pttl(key)).toBe(-1);
    await waitFor(
      async () => (await batches.get(batch.id))?.requestCounts.completed === 1,
      5_000,
      "the retry",
    );
    expect(await store.client.pttl(key)).toBeGreaterThan(50_000);
  });

  it("a cancel on one instance aborts the attempts another instance runs, at its next heartbeat", async () => {
    const a = instance("cancel:");
    const b = instance("cancel:");
    const items = Array.from({ length: 6 }, (_, i) => ({
      customId: `c-${i}`,
      url: "/v1/chat/completions",
      body: {},
    }));
    const batch = await a.batches.create({ items, tenant: "t" });
    await waitFor(() => a.started.length + b.started.length === 6, 10_000, "every item to start");
    expect(b.started.length).toBeGreaterThan(0); // both instances took a share
    const cancelled = await a.batches.cancel(batch.id);
    expect(cancelled).toMatchObject({
      status: "cancelled",
      requestCounts: { total: 6, completed: 0, failed: 6 },
    });
    await waitFor(
      () => b.aborted.length === b.started.length,
      5_000,
      "the other instance to abort its attempts",
    );
    expect(a.aborted.sort()).toEqual(a.started.sort());
    const results = [];
    for await (const result of b.batches.results(batch.id)) results.push(result);
    expect(results.map((r) => r.error?.code)).toEqual(Array(6).fill("batch_cancelled"));
  });
});

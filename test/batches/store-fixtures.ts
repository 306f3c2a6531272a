import { type Batch, type BatchStore, MemoryBatchStore, newId } from "@llm-scheduler/batches";
import { RedisBatchStore } from "@llm-scheduler/redis";
import { afterAll } from "vitest";
import type { RedisServer } from "../redis/redis-server.js";

/** What the batch store suites share: a start time, a retry policy, batch records and a final outcome. */
export const T0 = 1_000_000;
export const RETRY = { maxAttempts: 3, baseMs: 10, maxMs: 100 };

/** A `validating` batch record of `tenant`, created at `createdAt`, its window `windowMs`. */
export function batchRecord(tenant = "t", windowMs = 60_000, createdAt = T0, priority = "batch"): Batch {
  const id = newId("batch");
  return {
    id,
    tenant,
    status: "validating",
    priority,
    endpoint: null,
    inputFileId: null,
    outputFileId: `file-${id}-output`,
    errorFileId: `file-${id}-errors`,
    completionWindowMs: windowMs,
    retry: RETRY,
    requestCounts: { total: 0, completed: 0, failed: 0 },
    metadata: { run: "x" },
    errors: null,
    createdAt,
    expiresAt: createdAt + windowMs,
    inProgressAt: null,
    finalizingAt: null,
    completedAt: null,
    failedAt: null,
    expiredAt: null,
    cancellingAt: null,
    cancelledAt: null,
    runningSince: null,
  };
}

/** A batch of `n` items (`c-0` ... `c-(n-1)`) at `priority`, saved and started at T0. */
export async function started(
  store: BatchStore,
  n: number,
  tenant = "t",
  windowMs = 60_000,
  createdAt = T0,
  priority = "batch",
): Promise<Batch> {
  const batch = batchRecord(tenant, windowMs, createdAt, priority);
  await store.createBatch(batch);
  const items = Array.from({ length: n }, (_, index) => ({
    index,
    customId: `c-${index}`,
    method: "POST",
    url: "/v1/x",
    body: { n: index },
  }));
  await store.addItems(batch.id, items);
  return (await store.startBatch(batch.id, n, T0))!;
}

/** A successful final outcome. */
export const ok = (attemptAt = T0) => ({
  kind: "final" as const,
  response: { statusCode: 200, requestId: "r", body: { ok: true } },
  error: null,
  attempt: { startedAt: attemptAt, durationMs: 1, status: 200 },
});

/**
 * The two stores to hold to one contract, each made fresh per test: memory, and Redis on `redis.server`
 * (a prefix of its own per store; connections closed after the file).
 */
export function storeMakers(redis: {
  readonly server: RedisServer;
}): ReadonlyArray<readonly [string, () => BatchStore]> {
  const opened: RedisBatchStore[] = [];
  afterAll(async () => {
    for (const store of opened) await store.close();
  });
  return [
    ["memory", () => new MemoryBatchStore()],
    [
      "redis",
      () => {
        const store = new RedisBatchStore({ url: redis.server.url, prefix: `contract-${newId("p")}:` });
        opened.push(store);
        return store;
      },
    ],
  ];
}

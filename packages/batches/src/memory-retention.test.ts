import { describe, expect, it } from "vitest";
import { newId } from "./ids.js";
import { MemoryBatchStore } from "./memory-store.js";
import type { Batch } from "./types.js";

const T0 = 1_000_000;
const TTL = 10_000;

function record(): Batch {
  const id = newId("batch");
  return {
    id,
    tenant: "t",
    status: "validating",
    priority: "batch",
    endpoint: null,
    inputFileId: null,
    outputFileId: `file-${id}-output`,
    errorFileId: `file-${id}-errors`,
    completionWindowMs: 60_000,
    retry: { maxAttempts: 1, baseMs: 10, maxMs: 100 },
    requestCounts: { total: 0, completed: 0, failed: 0 },
    metadata: null,
    errors: null,
    createdAt: T0,
    expiresAt: T0 + 60_000,
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

async function cancelled(store: MemoryBatchStore, at: number): Promise<string> {
  const batch = record();
  await store.createBatch(batch);
  await store.addItems(batch.id, [{ index: 0, customId: "a", method: "POST", url: "/v1/x", body: null }]);
  await store.startBatch(batch.id, 1, at);
  await store.cancel(batch.id, at);
  return batch.id;
}

describe("MemoryBatchStore: finished batches are kept resultTtlMs, then dropped", () => {
  it("drops a finished batch (and so its output and error files) resultTtlMs after it finished", async () => {
    const store = new MemoryBatchStore({ resultTtlMs: TTL });
    const id = await cancelled(store, T0);
    const failed = record();
    await store.createBatch(failed);
    await store.failBatch(failed.id, [{ code: "invalid_json", message: "line 1" }], T0 + 1);
    await store.sweep(T0 + TTL - 1);
    expect((await store.getBatch(id))?.status).toBe("cancelled");
    expect(await store.results(id, 0, 10)).toHaveLength(1);
    await store.sweep(T0 + TTL);
    expect(await store.getBatch(id)).toBeUndefined();
    expect(await store.results(id, 0, 10)).toEqual([]);
    expect(await store.getBatch(failed.id)).toBeDefined();
    await store.sweep(T0 + TTL + 1);
    expect(await store.listBatches({})).toEqual([]);
  });

  it("keeps a batch reopened by retryFailed, counting again from its new end", async () => {
    const store = new MemoryBatchStore({ resultTtlMs: TTL });
    const id = await cancelled(store, T0);
    await store.retryFailed(id, T0 + 5_000);
    await store.sweep(T0 + TTL);
    expect((await store.getBatch(id))?.status).toBe("in_progress");
    await store.cancel(id, T0 + 20_000);
    await store.sweep(T0 + 20_000 + TTL - 1);
    expect(await store.getBatch(id)).toBeDefined();
    await store.sweep(T0 + 20_000 + TTL);
    expect(await store.getBatch(id)).toBeUndefined();
  });

  it("checks resultTtlMs", () => {
    expect(() => new MemoryBatchStore({ resultTtlMs: 10 })).toThrow(
      "Expected `resultTtlMs` to be an integer",
    );
  });
});

import { type Claim, newId } from "@llm-scheduler/batches";
import { describe, expect, it } from "vitest";
import { useRedisServer } from "../redis/helpers.js";
import { batchRecord, ok, RETRY, started, storeMakers, T0 } from "./store-fixtures.js";

const redis = useRedisServer();
const stores = storeMakers(redis);

describe.each(stores)("BatchStore contract: %s", (_name, make) => {
  it("claims items with tokens, refuses a stale settle, completes the batch and pages results", async () => {
    const store = make();
    const batch = await started(store, 3);
    expect(batch).toMatchObject({
      status: "in_progress",
      requestCounts: { total: 3, completed: 0, failed: 0 },
      metadata: { run: "x" },
    });
    const { claims } = await store.claim("a", 10, T0, 1_000);
    expect(claims.map((c) => c.item.customId).sort()).toEqual(["c-0", "c-1", "c-2"]);
    expect(claims[0]).toMatchObject({ tenant: "t", priority: "batch", retry: RETRY, attemptsMade: 0 });
    expect((await store.claim("b", 10, T0, 1_000)).claims).toEqual([]);
    const stale: Claim = { ...claims[0]!, token: claims[0]!.token - 1000 };
    expect(await store.settle(stale, ok(), T0)).toBeUndefined();
    for (const claim of claims) await store.settle(claim, ok(), T0 + 5);
    expect(await store.settle(claims[0]!, ok(), T0 + 6)).toBeUndefined(); // a second settle loses too
    const done = await store.getBatch(batch.id);
    expect(done).toMatchObject({
      status: "completed",
      requestCounts: { total: 3, completed: 3, failed: 0 },
      completedAt: T0 + 5,
    });
    const page = await store.results(batch.id, 1, 10);
    expect(page.map((r) => [r.index, r.customId, r.attempts.length])).toEqual([
      [1, "c-1", 1],
      [2, "c-2", 1],
    ]);
  });

  it("queues a retry until its due time, counts attempts, and reclaims a lapsed claim with a new token", async () => {
    const store = make();
    const batch = await started(store, 2);
    const { claims } = await store.claim("a", 10, T0, 1_000);
    const [first, second] = claims;
    await store.settle(
      first!,
      {
        kind: "retry",
        dueAt: T0 + 500,
        attempt: { startedAt: T0, durationMs: 2, status: 429, error: "http_429" },
      },
      T0 + 2,
    );
    const early = await store.claim("a", 10, T0 + 100, 1_000);
    expect(early.claims).toEqual([]);
    expect(early.nextDueAt).toBe(T0 + 500);
    const due = await store.claim("a", 10, T0 + 500, 1_000);
    expect(due.claims.map((c) => [c.item.index, c.attemptsMade])).toEqual([[first!.item.index, 1]]);
    expect(await store.extend([second!, due.claims[0]!], T0 + 600, 1_000)).toEqual([]); // deadlines now T0 + 1600
    await store.settle(due.claims[0]!, ok(), T0 + 700);
    expect((await store.claim("b", 10, T0 + 1_500, 1_000)).claims).toEqual([]);
    const reclaimed = await store.claim("b", 10, T0 + 1_700, 1_000);
    const sweep = await store.sweep(T0 + 1_700);
    expect(sweep).toEqual([]);
    const again =
      reclaimed.claims.length > 0 ? reclaimed.claims : (await store.claim("b", 10, T0 + 1_700, 1_000)).claims;
    expect(again.map((c) => c.item.index)).toEqual([second!.item.index]);
    expect(again[0]!.token).not.toBe(second!.token);
    expect(await store.extend([second!], T0 + 1_800, 1_000)).toEqual([second]);
    expect(await store.settle(second!, ok(), T0 + 1_800)).toBeUndefined();
    expect(await store.settle(again[0]!, ok(), T0 + 1_800)).toBeDefined();
    expect(await store.getBatch(batch.id)).toMatchObject({
      status: "completed",
      requestCounts: { total: 2, completed: 2, failed: 0 },
    });
    expect((await store.results(batch.id, 0, 10))[first!.item.index]!.attempts.map((a) => a.status)).toEqual([
      429, 200,
    ]);
  });

  it("cancel ends open items as batch_cancelled and revokes claims; retryFailed reopens only failed items", async () => {
    const store = make();
    const batch = await started(store, 4);
    const { claims } = await store.claim("a", 2, T0, 1_000);
    await store.settle(claims[0]!, ok(), T0 + 1);
    const cancelled = await store.cancel(batch.id, T0 + 2);
    expect(cancelled).toMatchObject({
      status: "cancelled",
      requestCounts: { total: 4, completed: 1, failed: 3 },
      cancelledAt: T0 + 2,
    });
    expect(await store.settle(claims[1]!, ok(), T0 + 3)).toBeUndefined();
    expect((await store.claim("a", 10, T0 + 3, 1_000)).claims).toEqual([]);
    const results = await store.results(batch.id, 0, 10);
    expect(results.filter((r) => r.error?.code === "batch_cancelled")).toHaveLength(3);
    const reopened = await store.retryFailed(batch.id, T0 + 10);
    expect(reopened).toMatchObject({
      status: "in_progress",
      requestCounts: { total: 4, completed: 1, failed: 0 },
      cancelledAt: null,
      runningSince: null,
      expiresAt: T0 + 10 + 60_000,
    });
    const again = await store.claim("a", 10, T0 + 10, 1_000);
    expect(again.claims.map((c) => c.item.index).sort()).toEqual(
      results
        .filter((r) => r.error !== null)
        .map((r) => r.index)
        .sort(),
    );
    for (const claim of again.claims) await store.settle(claim, ok(), T0 + 11);
    expect(await store.getBatch(batch.id)).toMatchObject({
      status: "completed",
      requestCounts: { total: 4, completed: 4, failed: 0 },
    });
  });

  it("sweep expires a batch at the end of its window; lists newest first by tenant and status", async () => {
    const store = make();
    const a = await started(store, 2, "x", 1_000);
    const b = await started(store, 1, "y", 60_000);
    const { claims } = await store.claim("a", 10, T0, 5_000);
    const ofA = claims.filter((c) => c.batchId === a.id);
    await store.settle(ofA[0]!, ok(), T0 + 1);
    const expired = await store.sweep(T0 + 1_000);
    expect(expired.map((x) => x.id)).toEqual([a.id]);
    expect(expired[0]).toMatchObject({
      status: "expired",
      requestCounts: { total: 2, completed: 1, failed: 1 },
    });
    expect((await store.results(a.id, 0, 10)).map((r) => r.error?.code ?? "ok")).toContain("batch_expired");
    expect(await store.settle(ofA[1]!, ok(), T0 + 1_001)).toBeUndefined();
    expect((await store.listBatches({ tenant: "x" })).map((x) => x.id)).toEqual([a.id]);
    expect((await store.listBatches({ status: "in_progress" })).map((x) => x.id)).toContain(b.id);
    expect(await store.listBatches({ after: "batch_unknown" })).toEqual([]);
    expect((await store.listBatches({ tenant: "y", after: a.id })).map((x) => x.id)).toEqual([]);
  });

  it("keeps every attempt across a retryFailed round", async () => {
    const store = make();
    const batch = await started(store, 1);
    const [claim] = (await store.claim("a", 1, T0, 1_000)).claims;
    const failed = { startedAt: T0, durationMs: 1, status: 500, error: "http_500" };
    const response = { statusCode: 500, requestId: "r", body: {} };
    await store.settle(
      claim!,
      { kind: "final", response, error: { code: "http_500", message: "x" }, attempt: failed },
      T0 + 1,
    );
    expect((await store.getBatch(batch.id))?.requestCounts).toEqual({ total: 1, completed: 0, failed: 1 });
    await store.retryFailed(batch.id, T0 + 2);
    const [again] = (await store.claim("a", 1, T0 + 2, 1_000)).claims;
    expect(again!.attemptsMade).toBe(0);
    await store.settle(again!, ok(T0 + 2), T0 + 3);
    const [result] = await store.results(batch.id, 0, 1);
    expect(result!.attempts.map((a) => a.status)).toEqual([500, 200]);
    expect(result!.error).toBeNull();
  });

  it("claims take tenant turns: a tenant with five batches gets the share of a tenant with one", async () => {
    const store = make();
    for (let i = 0; i < 5; i++) await started(store, 50, "heavy");
    for (const tenant of ["t1", "t2", "t3"]) await started(store, 50, tenant);
    const tenants: string[] = [];
    for (let round = 0; round < 4; round++) {
      const { claims } = await store.claim("o", 10, T0, 60_000);
      tenants.push(...claims.map((claim) => claim.tenant));
    }
    expect(tenants).toHaveLength(40);
    for (const tenant of ["heavy", "t1", "t2", "t3"]) {
      expect(tenants.filter((t) => t === tenant).length, tenant).toBe(10); // batch turns: heavy 25
    }
    const heavyBatches = new Set<string>();
    const { claims } = await store.claim("o", 40, T0, 60_000);
    for (const claim of claims) if (claim.tenant === "heavy") heavyBatches.add(claim.batchId);
    expect(heavyBatches.size).toBe(5); // and within a tenant, its batches take turns
  });

  it("sweep expires a batch whose creator stopped while it was validating; cancel of one counts nothing", async () => {
    const store = make();
    const stuck = batchRecord("t", 1_000);
    await store.createBatch(stuck);
    await store.addItems(stuck.id, [{ index: 0, customId: "c-0", method: "POST", url: "/v1/x", body: {} }]);
    expect((await store.claim("o", 10, T0, 60_000)).claims).toEqual([]); // nothing to claim yet
    expect(await store.sweep(T0 + 999)).toEqual([]);
    const [expired] = await store.sweep(T0 + 1_000);
    expect(expired).toMatchObject({ id: stuck.id, status: "expired", expiredAt: T0 + 1_000 });
    expect(await store.getBatch(stuck.id)).toMatchObject({
      status: "expired",
      requestCounts: { total: 0, completed: 0, failed: 0 },
    });
    expect(await store.sweep(T0 + 5_000)).toEqual([]);
    const other = batchRecord("t", 1_000);
    await store.createBatch(other);
    await store.addItems(other.id, [{ index: 0, customId: "c-0", method: "POST", url: "/v1/x", body: {} }]);
    expect(await store.cancel(other.id, T0)).toMatchObject({
      status: "cancelled",
      requestCounts: { total: 0, completed: 0, failed: 0 },
    });
    expect(await store.sweep(T0 + 5_000)).toEqual([]); // a cancelled batch is not expired again
    const invalid = batchRecord("t", 1_000);
    await store.createBatch(invalid);
    await store.failBatch(invalid.id, [{ code: "invalid_json", message: "line 1" }], T0);
    const empty = batchRecord("t", 1_000);
    await store.createBatch(empty);
    await store.startBatch(empty.id, 0, T0);
    expect(await store.sweep(T0 + 5_000)).toEqual([]); // nor a failed one, nor an empty completed one
    expect((await store.getBatch(invalid.id))?.status).toBe("failed");
    expect((await store.getBatch(empty.id))?.status).toBe("completed");
  });

  it("keeps input files line by line and deletes them", async () => {
    const store = make();
    const file = {
      id: newId("file"),
      tenant: "t",
      purpose: "batch",
      filename: "in.jsonl",
      bytes: 0,
      lines: 0,
      createdAt: T0,
      expiresAt: T0 + 60_000,
    };
    const quota = { maxBytes: 1_000, maxFiles: 10 };
    await store.createFile(file, quota);
    await store.appendFileLines(file.id, ["a", "b"], 4, quota);
    await store.appendFileLines(file.id, ["c"], 6, quota);
    expect(await store.getFile(file.id)).toMatchObject({ lines: 3, bytes: 6 });
    expect(await store.fileLines(file.id, 1, 5)).toEqual(["b", "c"]);
    expect(await store.deleteFile(file.id)).toBe(true);
    expect(await store.getFile(file.id)).toBeUndefined();
  });
});

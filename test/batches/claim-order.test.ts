import { type BatchStore, type ClaimOrder, estimateInputs, withEstimate } from "@llm-scheduler/batches";
import { describe, expect, it } from "vitest";
import { useRedisServer } from "../redis/helpers.js";
import { ok, started, storeMakers, T0 } from "./store-fixtures.js";

// The order of claims across batches, held to one contract by the memory and the Redis batch stores.
const redis = useRedisServer();
const stores = storeMakers(redis);

const MINUTE = 60_000;
const DEADLINE: ClaimOrder = { key: "deadline", tieMs: MINUTE };

/** Which batch each claimed item belongs to, by the names given to the batch ids. */
async function claimed(store: BatchStore, names: Map<string, string>, limit: number, order = DEADLINE) {
  const { claims } = await store.claim("o", limit, T0, MINUTE, order);
  return claims.map((claim) => names.get(claim.batchId)!);
}

describe.each(stores)("claim order: %s", (_name, make) => {
  it("takes the batch whose window ends first, whatever the order they were created in", async () => {
    const store = make();
    const late = await started(store, 10, "a", 60 * MINUTE);
    const soon = await started(store, 3, "b", 10 * MINUTE, T0 + 1_000);
    const names = new Map([
      [late.id, "late"],
      [soon.id, "soon"],
    ]);
    // every item the earliest deadline has due goes first; the next batch gets only the rest
    expect(await claimed(store, names, 5)).toEqual(["soon", "soon", "soon", "late", "late"]);
  });

  it("with key `created`, takes the oldest batch first (FIFO across batches)", async () => {
    const store = make();
    const old = await started(store, 10, "a", 60 * MINUTE);
    const young = await started(store, 3, "b", 10 * MINUTE, T0 + 1_000);
    const names = new Map([
      [old.id, "old"],
      [young.id, "young"],
    ]);
    const order: ClaimOrder = { key: "created", tieMs: 0 };
    expect(await claimed(store, names, 5, order)).toEqual(["old", "old", "old", "old", "old"]);
  });

  it("deadlines within tieMs share by tenant turns; 0 ms apart beyond it they do not", async () => {
    const store = make();
    const a = await started(store, 50, "a", 30 * MINUTE);
    const b = await started(store, 50, "b", 30 * MINUTE, T0 + 30_000); // 30 s later: tied
    const c = await started(store, 50, "c", 32 * MINUTE); // 2 min later: the next group
    const names = new Map([
      [a.id, "a"],
      [b.id, "b"],
      [c.id, "c"],
    ]);
    const first = await claimed(store, names, 20);
    expect(first.filter((n) => n === "a")).toHaveLength(10);
    expect(first.filter((n) => n === "b")).toHaveLength(10);
    const strict = await claimed(store, names, 20, { key: "deadline", tieMs: 0 });
    expect(strict).toEqual(Array(20).fill("a"));
  });

  it("a batch near its deadline takes the whole share while it has items due, then the others go on", async () => {
    const store = make();
    const relaxed = await started(store, 100, "big-tenant", 24 * 60 * MINUTE);
    const urgent = await started(store, 12, "small-tenant", 5 * MINUTE, T0 + 60 * MINUTE - 5 * MINUTE);
    const names = new Map([
      [relaxed.id, "relaxed"],
      [urgent.id, "urgent"],
    ]);
    const first = await claimed(store, names, 8);
    expect(first).toEqual(Array(8).fill("urgent"));
    const next = await claimed(store, names, 8);
    expect(next.filter((n) => n === "urgent")).toHaveLength(4);
    expect(next.filter((n) => n === "relaxed")).toHaveLength(4);
  });

  it("orders within a priority: each priority's earliest batches are claimed together", async () => {
    const store = make();
    const soon = await started(store, 20, "a", 10 * MINUTE);
    const later = await started(store, 20, "a", 20 * MINUTE);
    const other = await started(store, 20, "b", 60 * MINUTE, T0, "interactive"); // first of its priority
    const names = new Map([
      [soon.id, "soon"],
      [later.id, "later"],
      [other.id, "other"],
    ]);
    const first = await claimed(store, names, 10);
    expect(first.filter((n) => n === "soon")).toHaveLength(5);
    expect(first.filter((n) => n === "other")).toHaveLength(5);
    expect(first).not.toContain("later");
  });

  it("records the round's first claim in runningSince; retryFailed clears it", async () => {
    const store = make();
    const batch = await started(store, 2, "a");
    expect((await store.getBatch(batch.id))?.runningSince).toBeNull();
    const { claims } = await store.claim("o", 1, T0 + 5, MINUTE, DEADLINE);
    expect((await store.getBatch(batch.id))?.runningSince).toEqual({ at: T0 + 5, done: 0 });
    await store.settle(claims[0]!, ok(), T0 + 10);
    const second = await store.claim("o", 1, T0 + 20, MINUTE, DEADLINE);
    expect((await store.getBatch(batch.id))?.runningSince).toEqual({ at: T0 + 5, done: 0 }); // kept
    const failed = {
      kind: "final" as const,
      response: null,
      error: { code: "http_400", message: "bad" },
      attempt: { startedAt: T0 + 20, durationMs: 1, status: 400 },
    };
    await store.settle(second.claims[0]!, failed, T0 + 30);
    const again = await store.retryFailed(batch.id, T0 + 40);
    expect(again?.runningSince).toBeNull();
    await store.claim("o", 1, T0 + 50, MINUTE, DEADLINE);
    expect((await store.getBatch(batch.id))?.runningSince).toEqual({ at: T0 + 50, done: 1 });
  });

  it("the completion estimate counts a batch that opens ahead in the claim order, read from either store", async () => {
    const store = make();
    const late = await started(store, 40, "a", 60 * MINUTE);
    const { claims } = await store.claim("o", 20, T0, MINUTE, DEADLINE);
    for (const claim of claims) await store.settle(claim, ok(), T0 + 20_000); // 20 items in 20 s
    await started(store, 30, "b", 10 * MINUTE, T0 + 1_000); // opens ahead of the late batch
    const now = T0 + 20_000;
    const batch = (await store.getBatch(late.id))!;
    const view = withEstimate(batch, await estimateInputs(store), DEADLINE, now);
    expect(view.estimatedCompletionAt).toBe(now + 50_000); // its 20 left and the 30 ahead, at 1 a second
  });
});

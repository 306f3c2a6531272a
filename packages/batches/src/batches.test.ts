import { isSchedulerError, type VirtualClock } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import { advance, flush, hang, items, ok, scripted, setup } from "../test/helpers.js";
import type { Batches } from "./batches.js";
import { MemoryBatchStore } from "./memory-store.js";
import type { ItemResult } from "./types.js";

let open: Batches | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function all(batches: Batches, id: string): Promise<ItemResult[]> {
  const found: ItemResult[] = [];
  for await (const result of batches.results(id)) found.push(result);
  return found;
}

describe("createBatches", () => {
  it("runs every item through scheduler.run() at the batch's priority and tenant, and completes", async () => {
    const { execute, calls } = scripted(ok);
    const { batches, runs, clock } = setup(execute);
    open = batches;
    const done: string[] = [];
    batches.on("done", ({ id, status }) => done.push(`${id}:${status}`));
    const batch = await batches.create({
      items: items(10),
      tenant: "eval-team",
      metadata: { run: "nightly" },
    });
    expect(batch.status).toBe("in_progress");
    await advance(clock, 100);
    const after = await batches.get(batch.id);
    expect(after?.status).toBe("completed");
    expect(after?.requestCounts).toEqual({ total: 10, completed: 10, failed: 0 });
    expect(after?.metadata).toEqual({ run: "nightly" });
    expect(after?.completedAt).toBeGreaterThanOrEqual(after!.createdAt);
    expect(calls).toHaveLength(10);
    expect(runs.every((r) => r.priority === "batch" && r.tenant === "eval-team" && r.retry === false)).toBe(
      true,
    );
    const results = await all(batches, batch.id);
    expect(results.map((r) => r.customId)).toEqual(items(10).map((item) => item.customId));
    expect(results[3]!.response?.body).toEqual({ echo: "q-3" });
    expect(results[3]!.attempts).toHaveLength(1);
    expect(done).toEqual([`${batch.id}:completed`]);
  });

  it("rejects a duplicate customId, naming it and both places, and saves nothing", async () => {
    const { batches } = setup(scripted(ok).execute);
    open = batches;
    const list = [...items(3), { customId: "q-1", url: "/v1/chat/completions", body: {} }];
    const error = await batches.create({ items: list }).catch((e: unknown) => e);
    expect(isSchedulerError(error, "INVALID_OPTION")).toBe(true);
    expect((error as Error).message).toContain("Duplicate customId `q-1` at items[3]");
    expect((error as Error).message).toContain("already used at items[1]");
    expect(await batches.list()).toEqual([]);
  });

  it("rejects invalid items and options with typed errors naming the field", async () => {
    const { batches } = setup(scripted(ok).execute);
    open = batches;
    const cases: Array<[unknown, string]> = [
      [{ items: [] }, "`items`"],
      [{ items: [{ customId: "a" }] }, "`items[0].url`"],
      [{ items: [{ customId: "a", url: "x" }] }, "`items[0].url`"],
      [{ items: [{ customId: "", url: "/v1/x" }] }, "`items[0].customId`"],
      [{ items: items(1), priority: "nope" }, "`priority`"],
      [{ items: items(1), completionWindowMs: 0 }, "`completionWindowMs`"],
      [{ items: items(1), retry: { maxAttempts: 0 } }, "`retry.maxAttempts`"],
      [{ items: items(1), retry: { tries: 3 } }, "`retry.tries`"],
      [{ items: items(1), colour: "red" }, "`colour`"],
      [{ items: items(1), metadata: { a: 1 } }, "`metadata.a`"],
      [
        { items: [{ customId: "a", url: "/v1/embeddings" }], endpoint: "/v1/chat/completions" },
        "`items[0].url`",
      ],
    ];
    for (const [options, field] of cases) {
      const error = await batches.create(options as never).catch((e: unknown) => e);
      expect(isSchedulerError(error, "INVALID_OPTION"), field).toBe(true);
      expect((error as Error).message).toContain(field);
    }
  });

  it("retries 429 after its retry-after-ms, at the front of the tenant's queue, recording every attempt", async () => {
    const { execute, calls } = scripted((context) =>
      context.attempt === 1 ? { status: 429, body: {}, headers: { "retry-after-ms": "5000" } } : ok(context),
    );
    const { batches, runs, clock } = setup(execute);
    open = batches;
    const batch = await batches.create({
      items: items(1),
      retry: { maxAttempts: 3, baseMs: 10, maxMs: 100 },
    });
    await advance(clock, 4_900);
    expect(calls).toHaveLength(1);
    await advance(clock, 1_200);
    expect(calls).toHaveLength(2);
    expect(runs.map((r) => r.retry)).toEqual([false, true]);
    const [result] = await all(batches, batch.id);
    expect(result!.error).toBeNull();
    expect(result!.attempts.map((a) => a.status)).toEqual([429, 200]);
    expect(result!.attempts[0]!.error).toBe("http_429");
  });

  it("retries 5xx, connection errors and run timeouts with backoff; gives up after maxAttempts", async () => {
    let n = 0;
    const { execute, calls } = scripted(async (context) => {
      n++;
      if (context.item.customId === "q-0") return { status: 503, body: { error: "busy" } };
      if (context.item.customId === "q-1" && context.attempt === 1) throw new Error("Connection refused");
      if (context.item.customId === "q-2" && context.attempt === 1) return hang(context);
      return ok(context);
    });
    const { batches, clock } = setup(execute, { itemTimeoutMs: 1_000 });
    open = batches;
    const batch = await batches.create({
      items: items(3),
      retry: { maxAttempts: 3, baseMs: 100, maxMs: 400 },
    });
    await advance(clock, 5_000);
    const results = await all(batches, batch.id);
    expect(results[0]!.error?.code).toBe("http_503");
    expect(results[0]!.response?.statusCode).toBe(503);
    expect(results[0]!.attempts).toHaveLength(3);
    expect(results[1]!.attempts.map((a) => a.error ?? a.status)).toEqual(["connection_error", 200]);
    expect(results[2]!.attempts.map((a) => a.error ?? a.status)).toEqual(["RUN_TIMEOUT", 200]);
    expect((await batches.get(batch.id))?.requestCounts).toEqual({ total: 3, completed: 2, failed: 1 });
    expect(calls.length).toBe(n);
  });

  it("an executor that answers nonsense fails its item with invalid_response, never hangs it", async () => {
    const { execute } = scripted(() => undefined as never);
    const { batches, clock } = setup(execute);
    open = batches;
    const batch = await batches.create({ items: items(2) });
    await advance(clock, 1_000);
    expect(await batches.get(batch.id)).toMatchObject({
      status: "completed",
      requestCounts: { completed: 0, failed: 2 },
    });
    const results = await all(batches, batch.id);
    expect(results.map((r) => r.error?.code)).toEqual(["invalid_response", "invalid_response"]);
  });

  it("treats other 4xx as final at the first attempt", async () => {
    const { execute, calls } = scripted(() => ({ status: 400, body: { error: { message: "bad" } } }));
    const { batches, clock } = setup(execute);
    open = batches;
    const batch = await batches.create({ items: items(2) });
    await advance(clock, 5_000);
    expect(calls).toHaveLength(2);
    const after = await batches.get(batch.id);
    expect(after?.status).toBe("completed");
    expect(after?.requestCounts).toEqual({ total: 2, completed: 0, failed: 2 });
  });

  it("expires at the end of the completion window: open items end as batch_expired, finished ones are kept", async () => {
    const { execute } = scripted((context) => (context.item.index < 2 ? ok(context) : hang(context)));
    const { batches, clock } = setup(execute);
    open = batches;
    const batch = await batches.create({ items: items(6), completionWindowMs: 10_000 });
    await advance(clock, 12_000, 500);
    const after = await batches.get(batch.id);
    expect(after?.status).toBe("expired");
    expect(after?.requestCounts).toEqual({ total: 6, completed: 2, failed: 4 });
    const results = await all(batches, batch.id);
    expect(results).toHaveLength(6);
    expect(results.slice(2).every((r) => r.error?.code === "batch_expired")).toBe(true);
    expect(batches.inFlight).toBe(0);
  });

  it("cancel mid-way stops dispatch, aborts what runs and keeps what finished", async () => {
    const aborted: string[] = [];
    const { execute, calls } = scripted((context) => {
      if (context.item.index < 3) return ok(context);
      context.signal.addEventListener("abort", () => aborted.push(context.item.customId));
      return hang(context);
    });
    const { batches, clock } = setup(execute);
    open = batches;
    const batch = await batches.create({ items: items(20) });
    await advance(clock, 100);
    const cancelled = await batches.cancel(batch.id);
    await flush();
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.requestCounts).toEqual({ total: 20, completed: 3, failed: 17 });
    expect(aborted.length).toBeGreaterThan(0);
    const started = calls.length;
    await advance(clock, 5_000);
    expect(calls.length).toBe(started);
    const results = await all(batches, batch.id);
    expect(results).toHaveLength(20);
    expect(results.filter((r) => r.error?.code === "batch_cancelled")).toHaveLength(17);
    await expect(batches.cancel("batch_nope")).rejects.toMatchObject({ code: "BATCH_NOT_FOUND" });
  });

  it("retryFailed runs only the failed items again and completes the batch", async () => {
    let healthy = false;
    const { execute, calls } = scripted((context) =>
      healthy || context.item.index % 2 === 0 ? ok(context) : { status: 500, body: {} },
    );
    const { batches, clock } = setup(execute);
    open = batches;
    const batch = await batches.create({ items: items(6), retry: { maxAttempts: 1 } });
    await advance(clock, 1_000);
    expect((await batches.get(batch.id))?.requestCounts).toEqual({ total: 6, completed: 3, failed: 3 });
    healthy = true;
    const before = calls.length;
    const reopened = await batches.retryFailed(batch.id);
    expect(reopened.status).toBe("in_progress");
    await advance(clock, 1_000);
    expect(calls.slice(before).map((c) => c.item.customId)).toEqual(["q-1", "q-3", "q-5"]);
    const after = await batches.get(batch.id);
    expect(after?.status).toBe("completed");
    expect(after?.requestCounts).toEqual({ total: 6, completed: 6, failed: 0 });
    const results = await all(batches, batch.id);
    expect(results[1]!.attempts.map((a) => a.status)).toEqual([500, 200]);
  });

  it("lists newest first, by tenant and status, in pages", async () => {
    const { execute } = scripted(hang);
    const { batches } = setup(execute);
    open = batches;
    const a = await batches.create({ items: items(1), tenant: "a" });
    const b = await batches.create({ items: items(1), tenant: "b" });
    const c = await batches.create({ items: items(1), tenant: "a" });
    await batches.cancel(c.id);
    expect((await batches.list()).map((x) => x.id)).toEqual([c.id, b.id, a.id]);
    expect((await batches.list({ tenant: "a" })).map((x) => x.id)).toEqual([c.id, a.id]);
    expect((await batches.list({ status: "cancelled" })).map((x) => x.id)).toEqual([c.id]);
    expect((await batches.list({ after: c.id, limit: 1 })).map((x) => x.id)).toEqual([b.id]);
    expect(() => batches.list({ limit: 0 })).toThrow("`limit`");
    expect(() => batches.list({ tenants: "a" } as never)).toThrow("did you mean `tenant`");
  });

  it("shares the scheduler: a small batch of another tenant and interactive calls do not wait for a big batch", async () => {
    const timers: { clock?: VirtualClock } = {};
    const { execute } = scripted(
      () =>
        new Promise((resolve) => timers.clock!.setTimer(() => resolve({ status: 200, body: null }), 1_000)),
    );
    const { batches, clock, scheduler } = setup(execute, { maxInFlight: 64 });
    timers.clock = clock;
    open = batches;
    const doneAt = new Map<string, number>();
    batches.on("done", ({ id }) => doneAt.set(id, clock.now()));
    const big = await batches.create({ items: items(200), tenant: "big" });
    await advance(clock, 2_000, 100);
    const small = await batches.create({ items: items(8), tenant: "small" });
    const waits: number[] = [];
    scheduler.on("started", (event) => event.priority === "interactive" && waits.push(event.waitMs));
    const interactive = Array.from({ length: 5 }, () =>
      scheduler.run(async () => "ok", { priority: "interactive" }),
    );
    await advance(clock, 100_000, 250);
    await Promise.all(interactive);
    expect(doneAt.has(big.id)).toBe(true);
    expect(doneAt.get(small.id)! - small.createdAt).toBeLessThan(12_000); // turns, not after the 200 others (~67 s)
    expect(doneAt.get(big.id)!).toBeGreaterThan(doneAt.get(small.id)!);
    expect(Math.max(...waits)).toBeLessThanOrEqual(1_000); // the next free slot, not the batch's end
  });

  it("close() gives running items back, and another instance on the same store finishes them", async () => {
    const store = new MemoryBatchStore();
    const first = setup(scripted(hang).execute, { store });
    const batch = await first.batches.create({ items: items(6) });
    await advance(first.clock, 100);
    expect(first.batches.inFlight).toBe(6);
    await first.batches.close();
    expect(first.batches.inFlight).toBe(0);
    const { execute, calls } = scripted(ok);
    const second = setup(execute, { store });
    open = second.batches;
    await advance(second.clock, 2_000);
    expect(await second.batches.get(batch.id)).toMatchObject({
      status: "completed",
      requestCounts: { total: 6, completed: 6, failed: 0 },
    });
    expect(calls).toHaveLength(6);
    const results = await all(second.batches, batch.id);
    expect(results.every((r) => r.attempts.length === 1)).toBe(true); // a release is not an attempt
  });

  it("a listener that throws never breaks the batch", async () => {
    const { execute } = scripted(ok);
    const { batches, clock, errors } = setup(execute);
    open = batches;
    batches.on("item", () => {
      throw new Error("listener bug");
    });
    const batch = await batches.create({ items: items(3) });
    await advance(clock, 100);
    expect((await batches.get(batch.id))?.status).toBe("completed");
    expect(errors.length).toBe(3);
  });

  it("an onError that throws breaks nothing either", async () => {
    const { execute } = scripted(ok);
    const { batches, clock } = setup(execute, {
      onError: () => {
        throw new Error("onError bug");
      },
    });
    open = batches;
    batches.on("done", () => {
      throw new Error("listener bug");
    });
    const batch = await batches.create({ items: items(2) });
    await advance(clock, 100);
    expect((await batches.get(batch.id))?.status).toBe("completed");
  });
});

describe("hostile input to the batch layer", () => {
  it("answers a non-string id with INVALID_OPTION, and an unknown one as not found", async () => {
    const { batches } = setup(scripted(ok).execute);
    open = batches;
    for (const call of [
      () => batches.cancel(123 as never),
      () => batches.retryFailed({} as never),
      () => batches.get(undefined as never),
      () => all(batches, null as never),
    ]) {
      expect(isSchedulerError(await call().catch((e: unknown) => e), "INVALID_OPTION")).toBe(true);
    }
    expect(await batches.get("x".repeat(10_000))).toBeUndefined();
    const missing = await batches.cancel("nope").catch((e: unknown) => e);
    expect((missing as { code?: string }).code).toBe("BATCH_NOT_FOUND");
  });

  it("refuses a body that is not JSON (a cycle, a BigInt) at create, naming the item, and saves nothing", async () => {
    const { batches } = setup(scripted(ok).execute);
    open = batches;
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const body of [cyclic, { n: 1n }]) {
      const error = await batches
        .create({ items: [...items(2), { customId: "odd", url: "/v1/chat/completions", body }] })
        .catch((e: unknown) => e);
      expect(isSchedulerError(error, "INVALID_OPTION")).toBe(true);
      expect((error as Error).message).toContain("items[2].body");
    }
    expect(await batches.list()).toEqual([]);
  });

  it("stores a copy of each body: changing the caller's object later changes nothing", async () => {
    const { execute, calls } = scripted(ok);
    const { batches, clock } = setup(execute);
    open = batches;
    const body = { model: "m", messages: [{ role: "user", content: "first" }] };
    await batches.create({ items: [{ customId: "a", url: "/v1/chat/completions", body }] });
    body.messages[0]!.content = "changed";
    await advance(clock, 100);
    expect(calls[0]!.item.body).toEqual({ model: "m", messages: [{ role: "user", content: "first" }] });
  });
});

describe("a window that ends while the batch is saved", () => {
  it("create answers the expired batch rather than an error", async () => {
    const store = new MemoryBatchStore();
    const addItems = store.addItems.bind(store);
    store.addItems = async (id, list) => {
      await addItems(id, list);
      await store.sweep(Number.MAX_SAFE_INTEGER); // another instance's heartbeat, after the window
    };
    const { batches } = setup(scripted(ok).execute, { store });
    open = batches;
    const batch = await batches.create({ items: items(2), completionWindowMs: 1 });
    expect(batch).toMatchObject({ status: "expired", requestCounts: { total: 0, completed: 0, failed: 0 } });
  });
});

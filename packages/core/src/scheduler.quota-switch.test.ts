import { describe, expect, it } from "vitest";
import { flush, Harness } from "../test/harness.js";

// The memory store skips tenant checks while no tenant has a quota; these switch quotas on and off
// through update() while tasks wait and run, and check that nothing is lost on the way.

const lanes = { batch: { weight: 1, queueTimeoutMs: 1e9, maxQueue: 1_000 } };

const running = (h: Harness): number => h.startOrder.filter((name) => !h.outcomes.has(name)).length;

describe("tenant quotas switched on and off by update()", () => {
  it("caps a tenant that already runs beyond the new maxConcurrency, and lifts the cap again", async () => {
    const h = new Harness({ maxConcurrency: 4, priorities: lanes });
    for (let i = 0; i < 8; i++) h.submit(`a-${i}`, { tenant: "a" });
    await flush();
    expect(running(h)).toBe(4);

    await h.scheduler.update({ tenantDefaults: { maxConcurrency: 2 } });
    await h.finish("a-0");
    await h.finish("a-1");
    expect(running(h)).toBe(2); // the freed slots stay free: a is at its new cap
    await h.finish("a-2");
    expect(running(h)).toBe(2); // one below the cap: one more starts
    expect(h.startOrder).toEqual(["a-0", "a-1", "a-2", "a-3", "a-4"]);

    // `update()` merges tenant settings: an unlimited maxConcurrency takes the quota away again.
    await h.scheduler.update({ tenantDefaults: { maxConcurrency: Number.POSITIVE_INFINITY } });
    await flush();
    expect(running(h)).toBe(4); // no quota any more: the waiting tasks fill every slot
  });

  it("applies a new tenant maxQueue to what already waits", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    for (let i = 0; i < 4; i++) h.submit(`a-${i}`, { tenant: "a" });
    await flush();
    await h.scheduler.update({ tenants: { a: { maxQueue: 3 } } });
    h.submit("a-4", { tenant: "a" });
    h.submit("b-0", { tenant: "b" });
    await flush();
    expect(h.errorCode("a-4")).toBe("TENANT_QUEUE_FULL"); // three of a's wait already
    expect(h.errorCode("b-0")).toBeUndefined();
    expect(h.scheduler.metrics().tenants.find((t) => t.tenant === "a")).toMatchObject({
      queued: 3,
      running: 1,
    });
  });

  it("keeps the token figures while no tenant has a quota", async () => {
    const h = new Harness({ maxConcurrency: 2, priorities: lanes });
    h.submit("a-0", { tenant: "a", tokens: 300 });
    h.submit("a-1", { tenant: "a", tokens: 200 });
    await flush();
    await h.finish("a-0");
    expect(h.scheduler.metrics().tenants.find((t) => t.tenant === "a")).toMatchObject({
      tokensServed: 500,
      tokensInFlight: 200,
      running: 1,
    });
  });
});

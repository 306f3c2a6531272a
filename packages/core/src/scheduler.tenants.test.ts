import { describe, expect, it } from "vitest";
import { flush, Harness } from "../test/harness.js";
import { MemoryStore } from "./memory/memory-store.js";

const lanes = { batch: { weight: 1, queueTimeoutMs: 1e9, maxQueue: 100_000 } };

describe("tenant fairness", () => {
  it("gives tenants turns: one tenant's 10,000 items delay another's 10 by a turn each", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    h.submit("blocker", { tenant: "big" });
    for (let i = 0; i < 10_000; i++) h.submit(`big-${i}`, { tenant: "big" });
    for (let i = 0; i < 10; i++) h.submit(`small-${i}`, { tenant: "small" });
    await flush();
    await h.finishInOrder(21);
    const order = h.startOrder.slice(1, 21);
    expect(order.filter((name) => name.startsWith("small")).length).toBe(10);
    for (let i = 0; i < 20; i += 2) expect(order[i]!.split("-")[0]).not.toBe(order[i + 1]!.split("-")[0]);
  });

  it("keeps FIFO order within a tenant", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    h.submit("blocker", { tenant: "a" });
    for (let i = 0; i < 5; i++) h.submit(`a-${i}`, { tenant: "a" });
    await flush();
    await h.finishInOrder(6);
    expect(h.startOrder.slice(1)).toEqual(["a-0", "a-1", "a-2", "a-3", "a-4"]);
  });

  it("lets a newly active tenant take its turn at the end of the current round", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    h.submit("blocker", { tenant: "a" });
    for (let i = 0; i < 3; i++) h.submit(`a-${i}`, { tenant: "a" });
    for (let i = 0; i < 3; i++) h.submit(`b-${i}`, { tenant: "b" });
    await flush();
    await h.finishInOrder(2); // a-0 started, then b-0
    for (let i = 0; i < 3; i++) h.submit(`c-${i}`, { tenant: "c" });
    await h.finishInOrder(6);
    expect(h.startOrder.slice(1, 8)).toEqual(["a-0", "b-0", "a-1", "b-1", "c-0", "a-2", "b-2"]);
  });

  it("honours tenant weights", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes, tenants: { gold: { weight: 3 } } });
    h.submit("blocker", { tenant: "x" });
    for (let i = 0; i < 30; i++) h.submit(`gold-${i}`, { tenant: "gold" });
    for (let i = 0; i < 30; i++) h.submit(`free-${i}`, { tenant: "free" });
    await flush();
    await h.finishInOrder(41);
    const gold = h.startOrder.slice(1, 41).filter((name) => name.startsWith("gold")).length;
    expect(gold).toBe(30);
  });

  it("forgets tenants that have nothing queued or running", async () => {
    const store = new MemoryStore();
    const h = new Harness({ maxConcurrency: 2, priorities: lanes, store });
    for (let i = 0; i < 1_000; i++) h.submit(`t${i}`, { tenant: `tenant-${i}` });
    await flush();
    expect(store.tenantQueues).toBe(1_000);
    expect(h.scheduler.metrics().tenants).toHaveLength(50);
    await h.finishInOrder(990);
    expect(store.tenantQueues).toBeLessThanOrEqual(10 + 64 + 10);
    await h.finishInOrder(10);
    expect(h.outcomes.size).toBe(1_000);
    expect(store.tenantQueues).toBeLessThanOrEqual(64 + 1);
    expect(h.scheduler.metrics().tenants).toEqual([]);
  });

  it("lists the busiest tenants in metrics, bounded", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes, metricsTenantLimit: 2 });
    for (let i = 0; i < 5; i++) h.submit(`a${i}`, { tenant: "a" });
    for (let i = 0; i < 3; i++) h.submit(`b${i}`, { tenant: "b" });
    h.submit("c0", { tenant: "c" });
    await flush();
    expect(h.scheduler.metrics().tenants).toEqual([
      {
        tenant: "a",
        priority: "batch",
        running: 1,
        queued: 4,
        tokensServed: 0,
        tokensInFlight: 0,
        throttled: 0,
      },
      {
        tenant: "b",
        priority: "batch",
        running: 0,
        queued: 3,
        tokensServed: 0,
        tokensInFlight: 0,
        throttled: 0,
      },
    ]);
  });
});

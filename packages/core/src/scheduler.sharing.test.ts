import { describe, expect, it } from "vitest";
import { flush, Harness } from "../test/harness.js";

const twoLanes = {
  interactive: { weight: 5, queueTimeoutMs: 1e9 },
  batch: { weight: 1, queueTimeoutMs: 1e9 },
};

describe("weighted fair sharing", () => {
  it("splits starts 5:1 between two backlogged priorities", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: twoLanes });
    h.submit("blocker", { priority: "batch" });
    for (let i = 0; i < 60; i++) h.submit(`b${i}`, { priority: "batch" });
    for (let i = 0; i < 60; i++) h.submit(`i${i}`, { priority: "interactive" });
    await flush();
    await h.finishInOrder(61);
    const window = h.startOrder.slice(1, 61);
    const interactive = window.filter((name) => name.startsWith("i")).length;
    expect(interactive).toBe(50);
    // Over every window of 12 consecutive starts, about 10 interactive and 2 batch.
    for (let start = 0; start + 12 <= 60; start += 6) {
      const count = window.slice(start, start + 12).filter((name) => name.startsWith("i")).length;
      expect(count).toBeGreaterThanOrEqual(9);
      expect(count).toBeLessThanOrEqual(11);
    }
  });

  it("does not let a long batch backlog win picks by its length", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: twoLanes });
    h.submit("blocker", { priority: "batch" });
    for (let i = 0; i < 1_000; i++) h.submit(`b${i}`, { priority: "batch" });
    h.submit("i0", { priority: "interactive" });
    await flush();
    await h.finishInOrder(2);
    expect(h.startOrder[1]).toBe("i0");
  });

  it("gives an idle priority no stored-up credit when it comes back", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: { a: { weight: 1 }, b: { weight: 1 } } });
    h.submit("blocker", { priority: "a" });
    for (let i = 0; i < 20; i++) h.submit(`a${i}`, { priority: "a" });
    await flush();
    await h.finishInOrder(11); // a runs alone for a while
    for (let i = 0; i < 20; i++) h.submit(`b${i}`, { priority: "b" });
    await flush();
    await h.finishInOrder(6);
    const after = h.startOrder.slice(-6).map((name) => name[0]);
    expect(after.filter((lane) => lane === "a").length).toBeGreaterThanOrEqual(2);
    expect(after.filter((lane) => lane === "b").length).toBeGreaterThanOrEqual(2);
  });

  it("uses update() weights for later picks", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: { a: { weight: 1 }, b: { weight: 1 } } });
    h.submit("blocker", { priority: "a" });
    for (let i = 0; i < 40; i++) h.submit(`a${i}`, { priority: "a" });
    for (let i = 0; i < 40; i++) h.submit(`b${i}`, { priority: "b" });
    await flush();
    await h.scheduler.update({ priorities: { b: { weight: 3 } } });
    await h.finishInOrder(41);
    const b = h.startOrder.slice(1, 41).filter((name) => name.startsWith("b")).length;
    expect(b).toBeGreaterThanOrEqual(29);
    expect(b).toBeLessThanOrEqual(31);
  });
});

describe("limits", () => {
  it("is work-conserving: a lone priority uses every slot its limits allow", async () => {
    const h = new Harness({ maxConcurrency: 4, priorities: twoLanes });
    for (let i = 0; i < 10; i++) h.submit(`b${i}`, { priority: "batch" });
    await flush();
    expect(h.startOrder).toHaveLength(4);
    expect(h.scheduler.metrics().running).toBe(4);
  });

  it("keeps reserved slots for their priority and starts an arrival there at once", async () => {
    const h = new Harness({
      maxConcurrency: 4,
      priorities: { interactive: { weight: 5, reserved: 2 }, batch: { weight: 1 } },
    });
    for (let i = 0; i < 10; i++) h.submit(`b${i}`, { priority: "batch" });
    await flush();
    expect(h.startOrder).toHaveLength(2);
    h.submit("i0", { priority: "interactive" });
    h.submit("i1", { priority: "interactive" });
    await flush();
    expect(h.startOrder.slice(2)).toEqual(["i0", "i1"]);
    expect(h.scheduler.metrics().priorities.interactive!.waitMs.max).toBe(0);
  });

  it("lets the reserving priority use its own reserve while the others wait", async () => {
    const h = new Harness({
      maxConcurrency: 2,
      priorities: { interactive: { weight: 1, reserved: 1 }, batch: { weight: 1 } },
    });
    h.submit("i0", { priority: "interactive" });
    h.submit("i1", { priority: "interactive" });
    h.submit("b0", { priority: "batch" });
    await flush();
    expect(h.startOrder).toEqual(["i0", "i1"]);
    await h.finish("i0");
    expect(h.startOrder).toEqual(["i0", "i1", "b0"]);
  });

  it("caps a priority at its maxConcurrency and lets others borrow the rest", async () => {
    const h = new Harness({
      maxConcurrency: 4,
      priorities: { interactive: { weight: 5 }, batch: { weight: 1, maxConcurrency: 2 } },
    });
    for (let i = 0; i < 5; i++) h.submit(`b${i}`, { priority: "batch" });
    await flush();
    expect(h.startOrder).toEqual(["b0", "b1"]);
    h.submit("i0", { priority: "interactive" });
    h.submit("i1", { priority: "interactive" });
    h.submit("i2", { priority: "interactive" });
    await flush();
    expect(h.startOrder).toEqual(["b0", "b1", "i0", "i1"]);
    // Batch has had no start while both waited, so stride gives it this one; interactive gets the next.
    await h.finish("b0");
    expect(h.startOrder.at(-1)).toBe("b2");
    await h.finish("i0");
    expect(h.startOrder.at(-1)).toBe("i2");
  });

  it("raises and lowers maxConcurrency live without losing anything", async () => {
    const h = new Harness({ maxConcurrency: 2, priorities: twoLanes });
    for (let i = 0; i < 8; i++) h.submit(`b${i}`, { priority: "batch" });
    await flush();
    await h.scheduler.update({ maxConcurrency: 5 });
    await flush();
    expect(h.scheduler.metrics().running).toBe(5);
    await h.scheduler.update({ maxConcurrency: 1 });
    await h.finish("b0");
    await h.finish("b1");
    expect(h.scheduler.metrics().running).toBe(3);
    await h.finishInOrder(8);
    expect(h.startOrder).toHaveLength(8);
    expect(h.outcomes.size).toBe(8);
  });

  it("counts cost units against the limit", async () => {
    const h = new Harness({ maxConcurrency: 4, priorities: twoLanes });
    h.submit("big", { priority: "batch", cost: 3 });
    h.submit("big2", { priority: "batch", cost: 3 });
    h.submit("small", { priority: "interactive", cost: 1 });
    await flush();
    expect(h.startOrder).toEqual(["big", "small"]);
    expect(h.scheduler.metrics().running).toBe(4);
  });
});

describe("aging", () => {
  const starved = {
    interactive: { weight: 1_000, queueTimeoutMs: 1e9 },
    batch: { weight: 1, queueTimeoutMs: 1e9, maxWaitMs: 10_000 },
  };

  it("gives a starved priority a start every maxWaitMs, oldest first, under heavy interactive load", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: starved });
    h.submit("i-blocker", { priority: "interactive" });
    h.submit("b0", { priority: "batch" });
    h.clock.advance(1_000);
    h.submit("b1", { priority: "batch" });
    for (let i = 0; i < 60; i++) h.submit(`i${i}`, { priority: "interactive" });
    await flush();
    const batchStartedAt: number[] = [];
    for (let step = 0; step < 40; step++) {
      h.clock.advance(1_000);
      await h.finishInOrder(1);
      if (h.startOrder.at(-1)!.startsWith("b")) batchStartedAt.push(h.clock.now());
    }
    expect(h.startOrder.filter((name) => name.startsWith("b"))).toEqual(["b0", "b1"]);
    // Weights alone would give batch one start per 1,000: aging gives it one at least every 10 s
    // (plus one turnover of the slot), oldest first.
    expect(batchStartedAt[0]! - 1_000).toBeLessThanOrEqual(11_000);
    expect(batchStartedAt[1]! - batchStartedAt[0]!).toBeLessThanOrEqual(11_000);
    expect(batchStartedAt[1]! - batchStartedAt[0]!).toBeGreaterThanOrEqual(10_000);
  });

  it("does not let a deep batch backlog, all of it past maxWaitMs, take every slot", async () => {
    const h = new Harness({
      maxConcurrency: 1,
      priorities: {
        interactive: { weight: 5, queueTimeoutMs: 1e9 },
        batch: { weight: 1, queueTimeoutMs: 1e9, maxWaitMs: 10_000 },
      },
    });
    h.submit("blocker", { priority: "batch" });
    for (let i = 0; i < 200; i++) h.submit(`b${i}`, { priority: "batch" });
    await flush();
    h.clock.advance(60_000); // every batch item is now far past maxWaitMs
    for (let i = 0; i < 60; i++) h.submit(`i${i}`, { priority: "interactive" });
    for (let step = 0; step < 60; step++) {
      h.clock.advance(100);
      await h.finishInOrder(1);
    }
    const window = h.startOrder.slice(1, 61);
    // Weighted sharing still rules: about five interactive starts per batch start.
    expect(window.filter((name) => name.startsWith("i")).length).toBeGreaterThanOrEqual(45);
  });
});

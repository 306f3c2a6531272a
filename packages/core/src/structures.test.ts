import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { VirtualClock } from "./clock.js";
import { Deadlines } from "./deadlines.js";
import { IndexedHeap } from "./heap.js";
import { RecentIds } from "./recent-ids.js";
import { WaitSketch } from "./wait-sketch.js";

describe("IndexedHeap", () => {
  it("pops in order after any mix of pushes and removals", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.boolean())), (entries) => {
        const heap = new IndexedHeap<{ key: number; heapIndex: number }>((a, b) => a.key < b.key);
        const items = entries.map(([key]) => ({ key, heapIndex: -1 }));
        for (const item of items) heap.push(item);
        const kept = items.filter((item, index) => !(entries[index]![1] && heap.remove(item)));
        const popped: number[] = [];
        for (let item = heap.pop(); item !== undefined; item = heap.pop()) popped.push(item.key);
        expect(popped).toEqual(kept.map((item) => item.key).sort((a, b) => a - b));
      }),
    );
  });
});

describe("Deadlines", () => {
  it("fires each deadline once, in order, with one timer armed", () => {
    const clock = new VirtualClock();
    const fired: number[] = [];
    const deadlines = new Deadlines<{ id: number; deadline: number; heapIndex: number }>(clock, (item) =>
      fired.push(item.id),
    );
    const items = [30, 10, 20, 10].map((at, id) => ({ id, deadline: 0, heapIndex: -1, at }));
    for (const item of items) deadlines.set(item, item.at);
    expect(clock.pendingTimers).toBe(1);
    deadlines.clear(items[2]!);
    clock.advance(15);
    expect(fired).toEqual([1, 3]);
    clock.advance(100);
    expect(fired).toEqual([1, 3, 0]);
    deadlines.dispose();
    expect(clock.pendingTimers).toBe(0);
  });
});

describe("WaitSketch", () => {
  it("reports quantiles within 2% of the exact values", () => {
    const sketch = new WaitSketch();
    const values = Array.from({ length: 10_000 }, (_, i) => (i * 7919) % 10_000);
    for (const value of values) sketch.record(value);
    const sorted = [...values].sort((a, b) => a - b);
    for (const q of [0.5, 0.95, 0.99]) {
      const exact = sorted[Math.ceil(q * sorted.length) - 1]!;
      expect(Math.abs(sketch.quantile(q) - exact) / exact).toBeLessThan(0.02);
    }
    expect(sketch.snapshot().max).toBe(9_999);
  });
});

describe("RecentIds", () => {
  it("remembers within the window and up to its capacity", () => {
    const recent = new RecentIds(1_000, 2);
    recent.remember("a", 0);
    recent.remember("b", 0);
    recent.remember("c", 0);
    expect(recent.take("a", 10)).toBe(false);
    expect(recent.take("b", 10)).toBe(true);
    expect(recent.take("b", 10)).toBe(false);
    expect(recent.take("c", 2_000)).toBe(false);
  });
});

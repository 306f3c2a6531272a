import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { VirtualClock } from "./clock.js";
import { Deadlines } from "./deadlines.js";
import { DeadlineFifo } from "./fifo-deadlines.js";
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

interface Item {
  id: number;
  due: number;
  heapIndex: number;
  lane: string;
}

const item = (id: number, lane = "a"): Item => ({ id, due: -1, heapIndex: -1, lane });
const lanes = new Map<string, DeadlineFifo<Item>>();
/** The FIFO of a lane, made on first use (a scheduler keeps one in each priority's book). */
function fifoOf(lane: string): DeadlineFifo<Item> {
  let fifo = lanes.get(lane);
  if (fifo === undefined) {
    fifo = new DeadlineFifo<Item>();
    lanes.set(lane, fifo);
  }
  return fifo;
}

describe("Deadlines", () => {
  it("fires each deadline once, in order, with one timer armed", () => {
    const clock = new VirtualClock();
    const fired: number[] = [];
    const deadlines = new Deadlines<Item>(
      clock,
      (item) => fired.push(item.id),
      (item) => fifoOf(item.lane),
    );
    const items = [30, 10, 20, 10].map((at, id) => ({ ...item(id), at }));
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

  it("fires queue deadlines from per-lane FIFOs and the heap together, in deadline order", () => {
    const clock = new VirtualClock();
    const fired: number[] = [];
    const deadlines = new Deadlines<Item>(
      clock,
      (expired) => fired.push(expired.id),
      (expired) => fifoOf(expired.lane),
    );
    const items = Array.from({ length: 6 }, (_, id) => item(id, id % 2 === 0 ? "a" : "b"));
    deadlines.queue(items[0]!, 10);
    deadlines.queue(items[1]!, 5);
    deadlines.queue(items[2]!, 20);
    deadlines.queue(items[3]!, 25);
    deadlines.set(items[4]!, 12);
    deadlines.queue(items[5]!, 3); // earlier than lane b's last: goes to the heap
    expect(clock.pendingTimers).toBe(1);
    deadlines.clear(items[0]!);
    clock.advance(15);
    expect(fired).toEqual([5, 1, 4]);
    clock.advance(100);
    expect(fired).toEqual([5, 1, 4, 2, 3]);
    deadlines.dispose();
    expect(clock.pendingTimers).toBe(0);
  });

  it("moves a queued deadline to the heap without holding up the FIFO behind it", () => {
    const clock = new VirtualClock();
    const fired: number[] = [];
    const deadlines = new Deadlines<Item>(
      clock,
      (expired) => fired.push(expired.id),
      (expired) => fifoOf(expired.lane),
    );
    const [first, moved, behind, last] = [item(0, "c"), item(1, "c"), item(2, "c"), item(3, "c")];
    deadlines.queue(first, 5);
    deadlines.queue(moved, 10);
    deadlines.queue(behind, 20);
    deadlines.queue(last, 40);
    deadlines.set(moved, 30); // its FIFO entry stays until the head passes it, but no longer counts
    clock.advance(25);
    expect(fired).toEqual([0, 2]);
    clock.advance(10);
    expect(fired).toEqual([0, 2, 1]);
    deadlines.set(first, 100);
    deadlines.dispose();
    expect([first, moved, behind, last].every(({ due, heapIndex }) => due === -1 && heapIndex === -1)).toBe(
      true,
    );
  });

  it("keeps a FIFO as small as its live deadlines when removals come out of order", () => {
    const fifo = new DeadlineFifo<Item>();
    const items = Array.from({ length: 10_000 }, (_, id) => item(id));
    for (const queued of items) fifo.push(queued, queued.id);
    for (const queued of items.slice(1)) fifo.remove(queued); // the head stays, the rest leave
    expect(fifo.slots).toBeLessThan(100);
    expect(fifo.peek()).toBe(items[0]);
    fifo.remove(items[0]!);
    expect(fifo.peek()).toBeUndefined();
    expect(fifo.slots).toBe(0);
    expect(items.every((left) => left.due === -1)).toBe(true);
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

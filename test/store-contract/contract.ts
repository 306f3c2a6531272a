import type { SchedulerOptions } from "@llm-scheduler/core";
import type { Store } from "@llm-scheduler/core/kit";
import { afterEach, describe, expect, it } from "vitest";
import { Driver } from "./driver.js";

/** How the suite gets stores: each call a fresh one that shares nothing with earlier ones. */
export interface StoreFactory {
  readonly name: string;
  create(): Store;
  /** Frees what `create` made (connections), after the store was detached. */
  dispose?(store: Store): Promise<void>;
}

const one = (extra: SchedulerOptions = {}): SchedulerOptions => ({
  maxConcurrency: 1,
  priorities: { a: {} },
  ...extra,
});

/**
 * The first granted ticket not yet released. A store may hand a freed slot to the next ticket after
 * `release()` has answered (the Durable Object store tells the waiter over its own pending call), so
 * this waits up to `GRANT_WAIT_MS` of real time for that grant to arrive.
 */
async function nextGranted(driver: Driver, released: Set<number>): Promise<number | undefined> {
  const deadline = Date.now() + GRANT_WAIT_MS;
  for (;;) {
    const seq = driver.granted.find((s) => !released.has(s));
    if (seq !== undefined || Date.now() > deadline) return seq;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
const GRANT_WAIT_MS = 5_000;

/** Releases the first granted ticket not yet released, `times` times, in grant order. */
async function releaseInOrder(driver: Driver, released: Set<number>, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const seq = await nextGranted(driver, released);
    if (seq === undefined) return;
    released.add(seq);
    await driver.release(seq);
  }
}

/**
 * The behaviours every store must have, run against each store through a small factory (the
 * in-memory store and the Redis store): admission, bounds, removal, exactly-once grants, and the
 * picking rule (weights, reserves, caps, aging, tenant turns, retries, costs).
 */
export function runStoreContract(factory: StoreFactory): void {
  describe(`store contract: ${factory.name}`, () => {
    let drivers: Driver[] = [];

    async function open(options: SchedulerOptions): Promise<Driver> {
      const driver = new Driver(factory.create(), options);
      drivers.push(driver);
      await driver.attach();
      return driver;
    }

    afterEach(async () => {
      for (const driver of drivers) {
        await driver.close();
        await factory.dispose?.(driver.store);
      }
      drivers = [];
    });

    it("grants at once while a slot is free and nothing waits, then queues", async () => {
      const d = await open({ maxConcurrency: 2, priorities: { a: {} } });
      expect((await d.enqueue({ priority: "a" }))[1]).toBe("granted");
      expect((await d.enqueue({ priority: "a" }))[1]).toBe("granted");
      expect((await d.enqueue({ priority: "a", tenant: "x" }))[1]).toBe("queued");
      expect(d.store.depth("a")).toBe(1);
      const snapshot = d.store.snapshot(10);
      expect(snapshot).toMatchObject({ running: 2, queued: 1, priorities: { a: { running: 2, queued: 1 } } });
      // A store may add its token figures (tokensServed, ...) to a tenant's entry.
      expect(snapshot.tenants).toContainEqual(
        expect.objectContaining({ tenant: "x", priority: "a", running: 0, queued: 1 }),
      );
    });

    it("grants each waiting ticket exactly once, first in first out, as slots are released", async () => {
      const d = await open(one());
      await d.enqueueAll([{ priority: "a" }, { priority: "a" }, { priority: "a" }, { priority: "a" }]);
      expect(d.granted).toEqual([1]);
      for (let seq = 1; seq <= 4; seq++) await d.release(seq);
      expect(d.granted).toEqual([1, 2, 3, 4]);
      expect(d.store.snapshot(10)).toMatchObject({ running: 0, queued: 0 });
    });

    it("refuses a ticket when its priority's queue or the whole queue is at its bound", async () => {
      const d = await open({ maxConcurrency: 1, maxQueue: 3, priorities: { a: { maxQueue: 2 }, b: {} } });
      const results = [];
      for (const priority of ["a", "a", "a", "a", "b", "b"]) results.push((await d.enqueue({ priority }))[1]);
      expect(results).toEqual(["granted", "queued", "queued", "full", "queued", "full"]);
      expect(d.store.depth("a")).toBe(2);
      expect(d.store.depth("b")).toBe(1);
    });

    it("removes a waiting ticket (true) but not a granted or unknown one (false); removed never start", async () => {
      const d = await open(one());
      const [t1, t2, t3] = await d.enqueueAll([{ priority: "a" }, { priority: "a" }, { priority: "a" }]);
      expect(await d.remove(t2!.seq)).toBe(true);
      expect(await d.remove(t2!.seq)).toBe(false);
      expect(await d.remove(t1!.seq)).toBe(false);
      expect(d.store.depth("a")).toBe(1);
      await d.release(t1!.seq);
      await d.release(t3!.seq);
      expect(d.granted).toEqual([1, 3]);
    });

    it("puts a retry at the front of its tenant's queue", async () => {
      const d = await open(one());
      await d.enqueueAll([
        { priority: "a" },
        { priority: "a" },
        { priority: "a" },
        { priority: "a", retry: true },
      ]);
      await releaseInOrder(d, new Set(), 3);
      expect(d.granted).toEqual([1, 4, 2, 3]);
    });

    it("gives tenants turns: a newcomer goes at the end of the current round", async () => {
      const d = await open(one());
      const A = { priority: "a", tenant: "A" };
      await d.enqueueAll([A, A, A, A, { priority: "a", tenant: "B" }]);
      await releaseInOrder(d, new Set(), 4);
      expect(d.granted).toEqual([1, 2, 5, 3, 4]);
    });

    it("gives a tenant of weight 2 two starts per round", async () => {
      const d = await open(one({ tenants: { H: { weight: 2 } } }));
      const H = { priority: "a", tenant: "H" };
      const L = { priority: "a", tenant: "L" };
      await d.enqueueAll([L, H, H, H, H, L, L, L]);
      await releaseInOrder(d, new Set(), 7);
      expect(d.granted).toEqual([1, 2, 3, 6, 4, 5, 7, 8]);
    });

    it("shares starts between priorities by weight (stride scheduling)", async () => {
      const d = await open({ maxConcurrency: 1, priorities: { hi: { weight: 3 }, lo: { weight: 1 } } });
      await d.enqueue({ priority: "lo" });
      for (let i = 0; i < 8; i++) await d.enqueueAll([{ priority: "hi" }, { priority: "lo" }]);
      await releaseInOrder(d, new Set(), 8);
      const priorities = d.granted.slice(1).map((seq) => d.get(seq).priority);
      expect(priorities).toEqual(["hi", "lo", "hi", "hi", "hi", "lo", "hi", "hi"]);
    });

    it("keeps reserved slots for their priority and lets others use them once it runs", async () => {
      const d = await open({ maxConcurrency: 2, priorities: { interactive: { reserved: 1 }, batch: {} } });
      const [b1, b2] = await d.enqueueAll([{ priority: "batch" }, { priority: "batch" }]);
      expect(d.granted).toEqual([b1!.seq]);
      const [i1] = await d.enqueueAll([{ priority: "interactive" }]);
      expect(d.granted).toEqual([b1!.seq, i1!.seq]);
      await d.release(b1!.seq);
      expect(d.granted).toEqual([b1!.seq, i1!.seq, b2!.seq]);
    });

    it("caps a priority at its maxConcurrency while others use the free slots", async () => {
      const d = await open({
        maxConcurrency: 3,
        priorities: { interactive: {}, batch: { maxConcurrency: 1 } },
      });
      const [b1, b2, i1] = await d.enqueueAll([
        { priority: "batch" },
        { priority: "batch" },
        { priority: "interactive" },
      ]);
      expect(d.granted).toEqual([b1!.seq, i1!.seq]);
      expect(d.store.snapshot(10).priorities.batch).toEqual({ running: 1, queued: 1 });
      await d.release(b1!.seq);
      expect(d.granted).toEqual([b1!.seq, i1!.seq, b2!.seq]);
    });

    it("starts a ticket that has waited maxWaitMs before heavier-weighted work (aging)", async () => {
      const d = await open({
        maxConcurrency: 1,
        priorities: { hi: { weight: 100 }, lo: { maxWaitMs: 5_000 } },
      });
      const [t0, lo] = await d.enqueueAll([{ priority: "hi" }, { priority: "lo" }]);
      d.clock.advance(1_000);
      const [h1] = await d.enqueueAll([{ priority: "hi" }, { priority: "hi" }, { priority: "hi" }]);
      await d.release(t0!.seq);
      expect(d.granted.at(-1)).not.toBe(lo!.seq); // lo waited 1 s: stride gives hi its turn
      d.clock.advance(5_000);
      await d.release(d.granted.at(-1)!);
      expect(d.granted.at(-1)).toBe(lo!.seq);
      expect(d.granted).toContain(h1!.seq);
    });

    it("counts a ticket as aged from exactly maxWaitMs", async () => {
      const d = await open({
        maxConcurrency: 1,
        priorities: { hi: { weight: 100 }, lo: { maxWaitMs: 1_000 } },
      });
      const [t0, lo] = await d.enqueueAll([{ priority: "hi" }, { priority: "lo" }, { priority: "hi" }]);
      d.clock.advance(1_000);
      await d.release(t0!.seq);
      expect(d.granted).toEqual([t0!.seq, lo!.seq]);
    });

    it("waits for enough slots for a costly ticket, keeping its tenant's order", async () => {
      const d = await open({ maxConcurrency: 3, priorities: { a: {} } });
      const [t1, t2, t3] = await d.enqueueAll([
        { priority: "a", cost: 2 },
        { priority: "a", cost: 2 },
        { priority: "a", cost: 1 },
      ]);
      expect(d.granted).toEqual([t1!.seq]);
      await d.release(t1!.seq);
      expect(d.granted).toEqual([t1!.seq, t2!.seq, t3!.seq]);
      expect(d.store.snapshot(10).running).toBe(3);
    });

    it("removes every waiting ticket at once and never grants them", async () => {
      const d = await open(one());
      const [t1, ...waiting] = await d.enqueueAll([{ priority: "a" }, { priority: "a" }, { priority: "a" }]);
      const removed = await d.store.removeAll();
      expect(removed.map((t) => t.seq).sort()).toEqual(waiting.map((t) => t.seq).sort());
      expect(d.store.depth("a")).toBe(0);
      await d.release(t1!.seq);
      expect(d.granted).toEqual([t1!.seq]);
      expect(d.store.snapshot(10)).toMatchObject({ running: 0, queued: 0 });
    });

    it("grants waiting tickets when a new configuration raises the limit", async () => {
      const d = await open(one());
      await d.enqueueAll([{ priority: "a" }, { priority: "a" }, { priority: "a" }]);
      await d.configure({ maxConcurrency: 3, priorities: { a: {} } });
      expect(d.granted).toEqual([1, 2, 3]);
    });
  });
}

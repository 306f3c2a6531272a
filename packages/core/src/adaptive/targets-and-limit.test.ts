import { describe, expect, it } from "vitest";
import { flush } from "../../test/harness.js";
import { VirtualClock } from "../clock.js";
import type { SchedulerEvents } from "../events.js";
import { MemoryStore } from "../memory/memory-store.js";
import { createScheduler } from "../scheduler.js";
import type { StoreConfig } from "../store.js";

/** A memory store that records every configuration it is given. */
class WatchedStore extends MemoryStore {
  readonly configs: StoreConfig[] = [];

  override configure(config: StoreConfig): void {
    this.configs.push(config);
    super.configure(config);
  }
}

const reservedOf = (config: StoreConfig): number => config.priorities.reduce((sum, p) => sum + p.reserved, 0);

/**
 * An adaptive limit and a wait target on one scheduler, with more chat than the limit can hold (so the
 * target raises its reserve as far as the bounds let it) beside a batch flood.
 */
function setUp(initial: number, maxReservedShare = 0.75, max = 16) {
  const clock = new VirtualClock(0);
  const store = new WatchedStore();
  const scheduler = createScheduler({
    clock,
    store,
    maxConcurrency: { initial, min: 2, max },
    adaptive: { windowMs: 1_000, minSamples: 5, cooldownMs: 1_000, overloadFactor: 0.5 },
    priorities: {
      interactive: { weight: 1, targetWaitMs: 200, queueTimeoutMs: 600_000 },
      batch: { weight: 1, queueTimeoutMs: 3_600_000, maxQueue: 100_000 },
    },
    waitTargets: { windowMs: 1_000, minSamples: 5, calmWindows: 2, maxReservedShare },
  });
  const shares: Array<SchedulerEvents["share"]> = [];
  scheduler.on("share", (event) => shares.push(event));
  const sleep = (ms: number) => () => new Promise<void>((resolve) => clock.setTimer(resolve, ms));
  for (let i = 0; i < 2_000; i++) scheduler.run(sleep(1_000), { priority: "batch" }).catch(() => {});
  const effectiveReserved = (): number =>
    scheduler.metrics().priorities.interactive!.share!.effectiveReserved;
  /**
   * Runs time, with a chat request of two seconds every 250 ms (eight slots' worth), until `until` or
   * until the effective reserve reaches `reserve`.
   */
  const chat = async (until: number, reserve = Number.POSITIVE_INFINITY): Promise<void> => {
    for (let tick = 0; clock.now() < until && effectiveReserved() < reserve; tick++) {
      if (tick % 5 === 0) scheduler.run(sleep(2_000), { priority: "interactive" }).catch(() => {});
      clock.advance(50);
      await flush();
    }
  };
  /** Closes the scheduler, letting the grace of the aborted tasks run out in virtual time. */
  const shutdown = async (): Promise<void> => {
    const closing = scheduler.close({ timeoutMs: 0 });
    for (let i = 0; i < 10 && clock.nextTimerAt() !== undefined; i++) {
      clock.advance(10_000);
      await flush();
    }
    await closing;
  };
  return {
    shutdown,
    clock,
    store,
    scheduler,
    shares,
    chat,
    effectiveReserved,
  };
}

/** One chat task fails with an upstream 503; returns the `limit` events that followed. */
async function overloadOnce(s: ReturnType<typeof setUp>): Promise<Array<SchedulerEvents["limit"]>> {
  const limits: Array<SchedulerEvents["limit"]> = [];
  s.scheduler.on("limit", (event) => limits.push(event));
  const overload = Object.assign(new Error("upstream 503"), { status: 503 });
  s.scheduler.run(() => Promise.reject(overload), { priority: "interactive" }).catch(() => {});
  for (let i = 0; i < 100 && limits.length === 0; i++) {
    s.clock.advance(50);
    await flush();
  }
  return limits;
}

describe("wait targets under an adaptive limit", () => {
  it("bounds the effective reserve by the live limit, not by the limit's initial value", async () => {
    const s = setUp(4);
    await s.scheduler.update({ maxConcurrency: 16 }); // the limit in force, as adaptation could set it
    await s.chat(40_000);
    // maxReservedShare (0.75) of the live limit 16, where the initial limit 4 allowed only 3.
    expect(Math.max(...s.shares.map((event) => event.reserved))).toBe(12);
    expect(s.store.configs.every((config) => reservedOf(config) <= config.maxConcurrency)).toBe(true);
    await s.shutdown();
  });

  it("a cut stops at the effective reserves, and the reserves are bounded afresh by the new limit", async () => {
    const s = setUp(16);
    await s.chat(40_000, 12);
    expect(s.effectiveReserved()).toBe(12);
    const limits = await overloadOnce(s);
    // Half of 16 would be 8, below the 12 slots the wait target holds: the cut stops at 12.
    expect(limits[0]).toMatchObject({ previous: 16, limit: 12, reason: "overload" });
    expect(s.scheduler.maxConcurrency).toBe(12);
    // ...and the reserve is bounded by the new limit (0.75 of 12), announced with reason "limit".
    expect(s.effectiveReserved()).toBe(9);
    expect(s.shares.at(-1)).toMatchObject({
      priority: "interactive",
      reason: "limit",
      reserved: 9,
      previousReserved: 12,
    });
    expect(s.store.configs.every((config) => reservedOf(config) <= config.maxConcurrency)).toBe(true);
    await s.shutdown();
  });

  it("still cuts when the reserves hold the whole limit: one slot at a time, the reserves shrink with it", async () => {
    // maxReservedShare 1: the target may reserve the whole limit (held at 8: chat needs eight slots).
    const s = setUp(8, 1, 8);
    while (s.clock.now() < 60_000 && s.effectiveReserved() < s.scheduler.maxConcurrency) {
      await s.chat(s.clock.now() + 250);
    }
    const limit = s.scheduler.maxConcurrency;
    expect(s.effectiveReserved()).toBe(limit);
    const limits = await overloadOnce(s);
    expect(limits[0]).toMatchObject({ previous: limit, limit: limit - 1, reason: "overload" });
    expect(s.effectiveReserved()).toBe(limit - 1);
    expect(s.store.configs.every((config) => reservedOf(config) <= config.maxConcurrency)).toBe(true);
    await s.shutdown();
  });
});

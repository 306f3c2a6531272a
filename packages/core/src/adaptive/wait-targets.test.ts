import { describe, expect, it } from "vitest";
import { flush } from "../../test/harness.js";
import { VirtualClock } from "../clock.js";
import type { SchedulerEvents } from "../events.js";
import { createScheduler, type Scheduler } from "../scheduler.js";

/** A scheduler with a wait target for `interactive`, on a virtual clock, and a way to run time. */
function setUp(interactive: Record<string, unknown> = {}) {
  const clock = new VirtualClock(0);
  const scheduler = createScheduler({
    clock,
    maxConcurrency: 4,
    priorities: {
      interactive: { weight: 1, targetWaitMs: 500, queueTimeoutMs: 120_000, ...interactive },
      batch: { weight: 1, queueTimeoutMs: 3_600_000, maxQueue: 100_000 },
    },
    waitTargets: { windowMs: 2_000, minSamples: 5, calmWindows: 2 },
  });
  const shares: Array<SchedulerEvents["share"]> = [];
  scheduler.on("share", (event) => shares.push(event));
  const waits: Array<{ at: number; waitMs: number }> = [];
  scheduler.on("started", (event) => {
    if (event.priority === "interactive") waits.push({ at: clock.now(), waitMs: event.waitMs });
  });
  const sleep = (ms: number) => () => new Promise<void>((resolve) => clock.setTimer(resolve, ms));
  /** Runs time until `until`, with an interactive task of `runMs` every `everyMs`. */
  const chat = async (until: number, everyMs: number, runMs: number): Promise<void> => {
    let next = clock.now();
    while (clock.now() < until) {
      if (clock.now() >= next) {
        scheduler.run(sleep(runMs), { priority: "interactive" }).catch(() => {});
        next += everyMs;
      }
      clock.advance(50);
      await flush();
    }
  };
  const flood = (count: number, runMs: number): void => {
    for (let i = 0; i < count; i++) scheduler.run(sleep(runMs), { priority: "batch" }).catch(() => {});
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
  return { clock, scheduler, shares, waits, chat, flood, shutdown };
}

function share(scheduler: Scheduler) {
  return scheduler.metrics().priorities.interactive!.share!;
}

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(0.95 * sorted.length) - 1)] ?? 0;
}

describe("wait targets", () => {
  it("raises the effective share while p95 wait is above the target, then holds the target", async () => {
    const { scheduler, shares, waits, chat, flood, shutdown } = setUp();
    flood(400, 10_000); // every slot busy with ten-second batch work
    // The first ten seconds build a backlog of chat that drains slowly; then the target holds.
    await chat(90_000, 250, 200);
    expect(shares.some((event) => event.reason === "above-target")).toBe(true);
    const now = share(scheduler);
    expect(now.weight).toBe(1);
    expect(now.reserved).toBe(0);
    expect(now.effectiveReserved).toBeGreaterThanOrEqual(1);
    expect(Math.max(...shares.map((event) => event.weight))).toBeGreaterThan(1); // raised, then given back
    expect(now.targetWaitMs).toBe(500);
    expect(scheduler.options.priorityByName.get("interactive")?.reserved).toBe(0); // configured unchanged
    const late = waits.filter((w) => w.at >= 60_000).map((w) => w.waitMs);
    expect(late.length).toBeGreaterThan(50);
    expect(p95(late)).toBeLessThanOrEqual(500);
    await shutdown();
  });

  it("gives the share back when the waits stay well under the target", async () => {
    const { scheduler, shares, chat, flood, shutdown } = setUp();
    flood(2_000, 10_000);
    await chat(40_000, 250, 200);
    const raised = share(scheduler).effectiveReserved;
    expect(raised).toBeGreaterThanOrEqual(1);
    await chat(400_000, 1_000, 50); // light chat: every arrival finds a reserved slot
    const after = share(scheduler);
    expect(after.effectiveReserved).toBeLessThan(raised);
    expect(shares.some((event) => event.reason === "under-target")).toBe(true);
    await shutdown();
  });

  it("changes nothing while the priority with a target has no starts", async () => {
    const { clock, scheduler, shares, flood, shutdown } = setUp();
    flood(100, 10_000);
    for (let t = 0; t < 120_000; t += 1_000) {
      clock.advance(1_000);
      await flush();
    }
    expect(shares).toEqual([]);
    expect(share(scheduler)).toMatchObject({ effectiveWeight: 1, effectiveReserved: 0 });
    await shutdown();
  });

  it("keeps update() on the configured values: the effective ones stay at least those", async () => {
    const { scheduler, chat, flood, shutdown } = setUp();
    flood(400, 10_000);
    await chat(30_000, 250, 200);
    const before = share(scheduler).effectiveReserved;
    await scheduler.update({ priorities: { interactive: { weight: 3 } } });
    const after = share(scheduler);
    expect(after.weight).toBe(3);
    expect(after.effectiveWeight).toBeGreaterThanOrEqual(3);
    expect(after.effectiveReserved).toBe(before);
    await shutdown();
  });

  it("shows configured and effective shares of priorities without a target too", () => {
    const scheduler = createScheduler({ priorities: { a: { weight: 2, reserved: 1 }, b: {} } });
    expect(scheduler.metrics().priorities.a!.share).toEqual({
      weight: 2,
      reserved: 1,
      effectiveWeight: 2,
      effectiveReserved: 1,
      targetWaitMs: null,
    });
  });
});

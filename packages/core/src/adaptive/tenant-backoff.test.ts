import { describe, expect, it } from "vitest";
import { runFor } from "../../test/adaptive-load.js";
import { VirtualClock } from "../clock.js";
import type { LimitEvent, SchedulerEvents } from "../events.js";
import { createScheduler, type Scheduler } from "../scheduler.js";
import { TenantBackoff } from "./tenant-backoff.js";

const limited = (): Error => Object.assign(new Error("429 rate limit reached for this key"), { status: 429 });

function setUp() {
  const clock = new VirtualClock(0);
  const scheduler = createScheduler({
    clock,
    maxConcurrency: { initial: 8, min: 2, max: 8 },
    adaptive: { windowMs: 1_000, minSamples: 5, cooldownMs: 2_000 },
    priorities: { work: {} },
  });
  const events: LimitEvent[] = [];
  scheduler.on("limit", (event) => events.push(event));
  const holds: Array<SchedulerEvents["backoff"]> = [];
  scheduler.on("backoff", (event) => holds.push(event));
  return { clock, scheduler, events, holds };
}

const sleep = (clock: VirtualClock, ms: number): Promise<void> =>
  new Promise((resolve) => clock.setTimer(resolve, ms));

/** `clients` closed-loop clients of tenant `b`, each task 200 ms and a success; counts completions. */
function steadyTenant(scheduler: Scheduler, clock: VirtualClock, clients: number, until: number) {
  const done = { count: 0 };
  const client = async (): Promise<void> => {
    while (clock.now() < until) {
      await scheduler.run(() => sleep(clock, 200), { tenant: "b" });
      done.count++;
    }
  };
  for (let i = 0; i < clients; i++) void client();
  return done;
}

/** Tenant `a`'s batch of `items`, each answered 429 after 50 ms; records its highest concurrency. */
function refusedBatch(scheduler: Scheduler, clock: VirtualClock, items: number, fromMs: number) {
  const seen = { running: 0, highestAfter: 0 };
  for (let i = 0; i < items; i++) {
    scheduler
      .run(
        async () => {
          seen.running++;
          if (clock.now() >= fromMs) seen.highestAfter = Math.max(seen.highestAfter, seen.running);
          await sleep(clock, 50);
          seen.running--;
          throw limited();
        },
        { tenant: "a" },
      )
      .catch(() => undefined);
  }
  return seen;
}

describe("adaptive limit: a tenant's own 429s", () => {
  it("slow that tenant only: the shared limit holds and the other tenant keeps its throughput", async () => {
    const alone = setUp();
    const before = steadyTenant(alone.scheduler, alone.clock, 6, 20_000);
    await runFor(alone.clock, 20_000, 10);

    const s = setUp();
    const b = steadyTenant(s.scheduler, s.clock, 6, 20_000);
    await runFor(s.clock, 500, 10);
    const a = refusedBatch(s.scheduler, s.clock, 300, 5_000);
    await runFor(s.clock, 19_500, 10);

    expect(s.events.filter((event) => event.reason === "overload")).toEqual([]);
    expect(s.scheduler.maxConcurrency).toBe(8);
    expect(b.count).toBeGreaterThanOrEqual(Math.floor(before.count * 0.95));
    expect(a.highestAfter).toBeLessThanOrEqual(1); // halved at each cut: 4, 2, 1
    expect(s.holds.slice(0, 3)).toEqual([
      { tenant: "a", maxConcurrency: 4, previous: null },
      { tenant: "a", maxConcurrency: 2, previous: 4 },
      { tenant: "a", maxConcurrency: 1, previous: 2 },
    ]);
  });

  it("cut the shared limit when no other tenant succeeds (the server's own 429)", async () => {
    const s = setUp();
    refusedBatch(s.scheduler, s.clock, 20, 0);
    await runFor(s.clock, 500, 10);
    expect(s.events[0]).toEqual({ limit: 6, previous: 8, reason: "overload" });
  });

  it("end: the held tenant gets a slot back per calm window, then its hold is lifted", async () => {
    const s = setUp();
    steadyTenant(s.scheduler, s.clock, 2, 40_000);
    await runFor(s.clock, 500, 10);
    refusedBatch(s.scheduler, s.clock, 30, 0);
    await runFor(s.clock, 6_000, 10);
    // The 429s are over: tenant a's answers succeed again, and its cap grows back to the limit.
    const seen = { running: 0, highest: 0 };
    const task = async (): Promise<void> => {
      seen.running++;
      seen.highest = Math.max(seen.highest, seen.running);
      await sleep(s.clock, 100);
      seen.running--;
    };
    const clients = Array.from({ length: 8 }, async () => {
      while (s.clock.now() < 30_000) await s.scheduler.run(task, { tenant: "a" });
    });
    await runFor(s.clock, 24_000, 10);
    await Promise.all(clients);
    expect(seen.highest).toBeGreaterThanOrEqual(6); // over its halved caps: the hold is gone
    expect(s.holds.at(-1)).toMatchObject({ tenant: "a", maxConcurrency: null });
    expect(s.events.filter((event) => event.reason === "overload")).toEqual([]);
  });
});

describe("TenantBackoff", () => {
  const config = { limit: 8, windowMs: 1_000, cooldownMs: 2_000 };

  it("halves a tenant once per cool-down, never for a task started before its cut, down to 1", () => {
    const backoff = new TenantBackoff();
    backoff.succeeded("b", 0, 1_000, 8);
    expect(backoff.refused("a", 0, 100, config)).toBe("held");
    expect(backoff.caps()).toEqual(new Map([["a", 4]]));
    backoff.succeeded("b", 500, 1_000, 8);
    expect(backoff.refused("a", 50, 2_500, config)).toBe("held"); // started before the cut
    expect(backoff.refused("a", 200, 2_500, config)).toBe("held");
    expect(backoff.caps()).toEqual(new Map([["a", 2]]));
    backoff.succeeded("b", 4_000, 1_000, 8);
    backoff.refused("a", 3_000, 5_000, config);
    backoff.succeeded("b", 7_000, 1_000, 8);
    backoff.refused("a", 6_000, 7_100, config);
    expect(backoff.caps()).toEqual(new Map([["a", 1]]));
  });

  it("calls a 429 the server's when no other tenant succeeded since the task started or in the last window", () => {
    const backoff = new TenantBackoff();
    backoff.succeeded("a", 0, 1_000, 8);
    expect(backoff.refused("a", 100, 200, config)).toBe("server");
    backoff.succeeded("b", 300, 1_000, 8);
    backoff.succeeded("a", 400, 1_000, 8);
    expect(backoff.refused("a", 350, 1_200, config)).toBe("held"); // b succeeded within the window
    expect(backoff.refused("c", 2_000, 2_500, config)).toBe("server"); // nobody since 1_500
  });

  it("forgets a hold with no news for 60 windows", () => {
    const backoff = new TenantBackoff();
    backoff.succeeded("b", 0, 1_000, 8);
    backoff.refused("a", 0, 100, config);
    expect(backoff.succeeded("b", 30_000, 1_000, 8)).toBe(false);
    expect(backoff.succeeded("b", 60_100, 1_000, 8)).toBe(true);
    expect(backoff.holding).toBe(false);
  });
});

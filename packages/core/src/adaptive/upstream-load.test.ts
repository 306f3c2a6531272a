import { describe, expect, it } from "vitest";
import { VirtualClock } from "../clock.js";
import type { LimitEvent } from "../events.js";
import type { Permit } from "../permit.js";
import { createScheduler } from "../scheduler.js";
import { DelayPolicy } from "./delay-policy.js";
import { resolveLimit, withFloor } from "./options.js";
import { AimdPolicy, upstreamCut, wantsMore } from "./policy.js";

const config = (controller: "delay" | "aimd") =>
  withFloor(resolveLimit({ initial: 8, min: 2, max: 64 }, { controller, probeMs: 10_000 }).adaptive!, 0);
const idle = { ratio: 1, medianMs: 100, baselineMs: 100, fullUse: false };
const load = (lowest: number, highest = lowest) => ({ ...idle, upstreamLoad: { lowest, highest } });

describe("a window's upstream load", () => {
  it("cuts only when every reading was over 1, by the lowest; grows only when none was", () => {
    expect(upstreamCut(load(1.25, 2))).toBe(0.8);
    expect(upstreamCut(load(1, 2))).toBeUndefined(); // one reading without a queue: it did not stay
    expect(upstreamCut(idle)).toBeUndefined();
    expect(wantsMore(load(0.5, 1))).toBe(true);
    expect(wantsMore(load(0.5, 1.1))).toBe(false);
    expect(wantsMore(idle)).toBe(false);
    expect(wantsMore({ ...idle, fullUse: true })).toBe(true);
  });

  it("delay: cuts to limit / load, remembers that limit as the knee, and grows with room up to below it", () => {
    const policy = new DelayPolicy(config("delay"));
    expect(policy.afterWindow(24, load(1.5), 0)).toEqual({ target: 16, reason: "upstream" });
    expect(policy.afterWindow(16, load(1), 1_000)).toEqual({ target: 17, reason: "increase" });
    expect(policy.afterWindow(23, load(1), 2_000)).toBeUndefined(); // one below the knee (24)
    expect(policy.afterWindow(23, load(1), 10_000)).toEqual({ target: 24, reason: "increase" }); // a probe
    // At most half in one step, at least one slot.
    expect(policy.afterWindow(24, load(5), 11_000)).toEqual({ target: 12, reason: "upstream" });
    expect(policy.afterWindow(12, load(1.01), 12_000)).toEqual({ target: 11, reason: "upstream" });
  });

  it("delay: a slow latency window and a queue together cut by the larger excess, as latency", () => {
    const policy = new DelayPolicy(config("delay"));
    const both = { ...load(2), ratio: 1.2, medianMs: 120, fullUse: true };
    expect(policy.afterWindow(20, both, 0)).toEqual({ target: 10, reason: "latency" });
  });

  it("aimd: a queue cuts like a slow window, in proportion down to overloadFactor; room adds a step", () => {
    const policy = new AimdPolicy(config("aimd"));
    expect(policy.afterWindow(20, load(1.05))).toEqual({ target: 18, reason: "upstream" }); // latencyFactor
    expect(policy.afterWindow(20, load(2))).toEqual({ target: 15, reason: "upstream" }); // overloadFactor
    expect(policy.afterWindow(15, load(1))).toEqual({ target: 16, reason: "increase" });
  });
});

describe("Scheduler.upstreamLoad", () => {
  /** An adaptive scheduler whose tasks each get a first byte after 50 ms and end at once. */
  function limited() {
    const clock = new VirtualClock(0);
    const scheduler = createScheduler({
      clock,
      maxConcurrency: { initial: 24, min: 2, max: 32 },
      adaptive: {
        windowMs: 1_000,
        minSamples: 4,
        cooldownMs: 2_000,
        latencyTolerance: Number.POSITIVE_INFINITY,
      },
    });
    const events: LimitEvent[] = [];
    scheduler.on("limit", (event) => events.push(event));
    /** `count` requests, one every 250 ms, each reporting `load` first (a scrape between requests). */
    const traffic = (count: number, reading: number): void => {
      for (let i = 0; i < count; i++) {
        scheduler.upstreamLoad(reading);
        const permit = scheduler.tryAcquire() as Permit;
        clock.advance(50);
        permit.firstByte();
        permit.release();
        clock.advance(200);
      }
    };
    return { clock, scheduler, events, traffic };
  }

  it("cuts the limit where the upstream stops queueing, and lets it grow while it has room", () => {
    const { clock, scheduler, events, traffic } = limited();
    traffic(5, 1.5); // 24 in flight with 8 queued inside the upstream, all through the window
    expect(events).toEqual([{ limit: 16, previous: 24, reason: "upstream" }]);
    clock.advance(2_000); // the cool-down
    traffic(8, 1); // no queue: grows although one request at a time never fills the limit
    expect(events.slice(1).map((event) => [event.limit, event.reason])).toEqual([
      [17, "increase"],
      [18, "increase"],
    ]);
    expect(scheduler.maxConcurrency).toBe(18);
  });

  it("keeps the limit when the queue came and went within a window, and while nothing reports", () => {
    const { scheduler, events, traffic } = limited();
    traffic(1, 1.5);
    traffic(1, 1);
    traffic(3, 1.5); // the first window closes: one reading without a queue, so no cut and no growth
    expect(events).toEqual([]);
    traffic(8, 1.5); // queued all through the next window: a cut, then a cool-down
    expect(events).toEqual([{ limit: 16, previous: 24, reason: "upstream" }]);
    expect(scheduler.maxConcurrency).toBe(16);
  });

  it("is ignored with a fixed limit, and refuses a reading that is not a number from 0 to 1,000", () => {
    const fixed = createScheduler({ maxConcurrency: 8 });
    fixed.upstreamLoad(3);
    expect(fixed.maxConcurrency).toBe(8);
    for (const bad of [-1, 1_001, Number.NaN, "2" as unknown as number]) {
      expect(() => fixed.upstreamLoad(bad)).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
    }
  });
});

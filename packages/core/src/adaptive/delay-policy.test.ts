import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ClosedLoad, runFor } from "../../test/adaptive-load.js";
import { VirtualClock } from "../clock.js";
import type { LimitEvent } from "../events.js";
import { createScheduler } from "../scheduler.js";
import { DelayPolicy } from "./delay-policy.js";
import { resolveLimit, withFloor } from "./options.js";

const config = withFloor(resolveLimit({ initial: 8, min: 2, max: 64 }, { probeMs: 10_000 }).adaptive!, 0);
const calm = { ratio: 1.05, medianMs: 105, baselineMs: 100, fullUse: true };
const slow = (ratio: number) => ({ ...calm, ratio, medianMs: 100 * ratio });

/** A server whose time per step is flat up to `knee` busy sequences and grows by 4/knee per one past it. */
const slowdown = (knee: number) => (running: number) =>
  1 + (0.1 * Math.min(running, knee)) / knee + (4 * Math.max(0, running - knee)) / knee;

describe("DelayPolicy", () => {
  it("cuts in proportion to the excess (at least one slot, at most half) and stops below that limit", () => {
    const policy = new DelayPolicy(config);
    expect(policy.afterWindow(25, slow(1.23), 0)).toEqual({ target: 23, reason: "latency" });
    expect(policy.afterWindow(23, calm, 1_000)).toEqual({ target: 24, reason: "increase" });
    expect(policy.afterWindow(24, calm, 2_000)).toBeUndefined(); // one below the knee found
    // Far over: half at most, but never below the last limit that read well (24)...
    expect(policy.afterWindow(40, slow(5), 3_000)).toEqual({ target: 24, reason: "latency" });
    expect(policy.afterWindow(24, slow(5), 4_000)).toEqual({ target: 12, reason: "latency" });
    // ...and only from below it.
    expect(policy.afterWindow(10, slow(1.16), 5_000)).toEqual({ target: 9, reason: "latency" });
  });

  it("tries the knee again after probeMs, and grows past it when the probe passes", () => {
    const policy = new DelayPolicy(config);
    policy.afterWindow(13, slow(1.4), 0);
    expect(policy.afterWindow(12, calm, 9_000)).toBeUndefined();
    expect(policy.probing).toBe(false);
    expect(policy.afterWindow(12, calm, 10_000)).toEqual({ target: 13, reason: "increase" });
    expect(policy.probing).toBe(true); // the next window judges the probe, on fewer samples
    expect(policy.afterWindow(13, calm, 11_000)).toEqual({ target: 14, reason: "increase" });
    expect(policy.probing).toBe(false);
  });

  it("keeps the knee when its probe reads within the tolerance only of a baseline that rose since", () => {
    const policy = new DelayPolicy(config);
    expect(policy.afterWindow(13, slow(1.2), 0)).toEqual({ target: 12, reason: "latency" }); // 120 ms at 13
    expect(policy.afterWindow(12, calm, 10_000)).toEqual({ target: 13, reason: "increase" });
    // The baseline rose to 108 ms meanwhile: 120 ms reads 1.11, within the tolerance, yet no faster.
    const risen = { ratio: 1.11, medianMs: 120, baselineMs: 108, fullUse: true };
    expect(policy.afterWindow(13, risen, 11_000)).toEqual({ target: 12, reason: "latency" });
    expect(policy.afterWindow(12, calm, 12_000)).toBeUndefined(); // the knee holds...
    expect(policy.afterWindow(12, calm, 21_000)).toEqual({ target: 13, reason: "increase" });
    expect(policy.afterWindow(13, calm, 22_000)).toEqual({ target: 14, reason: "increase" }); // ...until faster
  });

  it("holds a limit the load leaves unused, and sets the knee on an overload too", () => {
    const policy = new DelayPolicy(config);
    expect(policy.afterWindow(8, { ...calm, fullUse: false }, 0)).toBeUndefined();
    expect(policy.afterOverload(16, 0)).toBe(12);
    expect(policy.afterWindow(12, calm, 1_000)).toEqual({ target: 13, reason: "increase" });
    expect(policy.afterWindow(15, calm, 2_000)).toBeUndefined();
  });
});

describe("delay controller against a server with an unknown knee (virtual time)", () => {
  /** A closed loop twice the knee deep; answers slow down with the number running when they start. */
  async function settle(knee: number, initial: number, feed: "permit" | "run") {
    const clock = new VirtualClock(0);
    const scheduler = createScheduler({
      clock,
      maxConcurrency: { initial, min: 2, max: 128 },
      adaptive: { probeMs: 30_000 },
      priorities: { work: {} },
    });
    const events: LimitEvent[] = [];
    scheduler.on("limit", (event) => events.push(event));
    const factor = slowdown(knee);
    let running = 0;
    const samples: number[] = [];
    if (feed === "permit") {
      const load = new ClosedLoad(scheduler, clock, (n) => ({
        ttfbMs: 100 * factor(n),
        runMs: 400 * factor(n),
      }));
      load.start(2 * knee + 4);
    } else {
      const client = async (): Promise<void> => {
        for (;;) {
          await scheduler.run(() => {
            running++;
            const ms = 400 * factor(running);
            return new Promise<void>((resolve) => clock.setTimer(() => resolve(void running--), ms));
          });
        }
      };
      for (let i = 0; i < 2 * knee + 4; i++) void client();
    }
    for (let s = 0; s < 120; s++) {
      await runFor(clock, 1_000, 20);
      if (s >= 60) samples.push(scheduler.maxConcurrency);
    }
    return { samples, events };
  }

  it("holds every per-second limit of the second minute within 10% of the knee (or one slot)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 8, max: 40 }),
        fc.integer({ min: 2, max: 60 }),
        fc.constantFrom("permit" as const, "run" as const),
        async (knee, initial, feed) => {
          const { samples } = await settle(knee, initial, feed);
          const band = Math.max(1, 0.1 * knee);
          for (const limit of samples) expect(Math.abs(limit - knee)).toBeLessThanOrEqual(band);
        },
      ),
      { numRuns: 20 },
    );
  }, 60_000);

  it("settles instead of sawing: at the knee, past it only while probing (AIMD: 10 to 16 s a minute)", async () => {
    for (const knee of [12, 24, 32]) {
      for (const feed of ["permit", "run"] as const) {
        const { samples } = await settle(knee, 8, feed);
        expect(Math.min(...samples)).toBeGreaterThanOrEqual(knee - 1);
        expect(Math.max(...samples)).toBeLessThanOrEqual(knee + 1);
        expect(samples.filter((limit) => limit > knee).length).toBeLessThanOrEqual(5);
      }
    }
  }, 60_000);

  it("finds the knee from far above it too (the property's counterexamples: knee 27 from 46, ...)", async () => {
    for (const [knee, initial] of [
      [27, 46],
      [28, 47],
      [29, 49],
      [19, 32],
    ] as const) {
      const { samples } = await settle(knee, initial, "permit");
      const band = Math.max(1, 0.1 * knee);
      for (const limit of samples) expect(Math.abs(limit - knee)).toBeLessThanOrEqual(band);
    }
  }, 20_000);

  it("uses plain run time as the latency signal when tasks report nothing", async () => {
    const { events } = await settle(16, 40, "run");
    expect(events.some((event) => event.reason === "latency")).toBe(true);
  }, 20_000);
});

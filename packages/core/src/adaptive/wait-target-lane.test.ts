import { describe, expect, it } from "vitest";
import { resolveOptions, resolveWaitTargets } from "../resolve-options.js";
import { effectiveOptions } from "./effective-priorities.js";
import { WaitTargetLane } from "./wait-target-lane.js";

const settings = resolveWaitTargets({ windowMs: 1_000, minSamples: 10, calmWindows: 3 }, {});

/**
 * Feeds `count` waits of `waitMs` (tasks queued inside the window) spread over one window starting at
 * `from`, with `running` of the priority running at each start, then judges at the window's end.
 */
function window(
  lane: WaitTargetLane,
  from: number,
  waitMs: number,
  options: { reserved?: number; running?: number } = {},
) {
  const { reserved = 0, running = 1 } = options;
  for (let i = 0; i < 20; i++) lane.record(from + waitMs + i * 10, waitMs, running);
  return lane.judge(from + 1_000, settings, reserved);
}

describe("WaitTargetLane", () => {
  it("raises the share when the window's p95 is above the target", () => {
    const lane = new WaitTargetLane(500, 0);
    const verdict = window(lane, 0, 900);
    expect(verdict?.step).toBe("raise");
    expect(verdict?.p95Ms).toBeGreaterThan(500);
    expect(lane.boost).toBe(2);
    expect(lane.extra).toBe(1);
  });

  it("raises the reserve by a quarter of the current one, at least one slot", () => {
    const lane = new WaitTargetLane(500, 0);
    window(lane, 0, 900, { reserved: 8 });
    expect(lane.extra).toBe(2);
  });

  it("changes nothing without enough samples, however long the window ran", () => {
    const lane = new WaitTargetLane(500, 0);
    for (let i = 0; i < 9; i++) lane.record(i * 1_000 + 5_000, 5_000, 1);
    expect(lane.judge(60_000, settings, 0)).toBeUndefined();
    expect(lane.judge(3_600_000, settings, 0)).toBeUndefined();
    expect(lane.boost).toBe(1);
    expect(lane.extra).toBe(0);
    lane.record(3_600_000, 5_000, 1); // the tenth sample: now it is judged
    expect(lane.judge(3_600_000, settings, 0)?.step).toBe("raise");
  });

  it("does not judge before the window is over", () => {
    const lane = new WaitTargetLane(500, 0);
    for (let i = 0; i < 50; i++) lane.record(10, 5, 1);
    expect(lane.judge(999, settings, 0)).toBeUndefined();
    expect(lane.judge(1_000, settings, 0)?.step).toBe("hold");
  });

  it("does not count the waits of tasks queued before a change (they tell of the old share)", () => {
    const lane = new WaitTargetLane(500, 0);
    window(lane, 0, 900); // raised at 1_000
    for (let i = 0; i < 20; i++) lane.record(1_000 + i * 40, 5_000, 1); // the old backlog draining
    expect(lane.judge(2_000, settings, 1)).toBeUndefined(); // nothing counted yet
    expect(lane.boost).toBe(2);
    for (let i = 0; i < 20; i++) lane.record(2_000 + i * 40, 900, 1); // queued after the change, still long
    expect(lane.judge(3_000, settings, 1)?.step).toBe("raise");
  });

  it("gives back one step only after `calmWindows` windows well under the target", () => {
    const lane = new WaitTargetLane(500, 0);
    window(lane, 0, 900, { reserved: 0 });
    expect(window(lane, 1_000, 0, { reserved: 1, running: 0 })?.step).toBe("hold"); // calm 1
    expect(window(lane, 2_000, 0, { reserved: 1, running: 0 })?.step).toBe("hold"); // calm 2
    expect(lane.boost).toBe(2);
    expect(window(lane, 3_000, 0, { reserved: 1, running: 0 })?.step).toBe("lower"); // calm 3
    expect(lane.boost).toBeCloseTo(2 / 1.5);
    expect(lane.extra).toBe(0);
  });

  it("keeps a reserved slot it filled, even with every wait short (the slot is why they are short)", () => {
    const lane = new WaitTargetLane(500, 0);
    window(lane, 0, 900);
    for (let from = 1_000; from < 30_000; from += 1_000) window(lane, from, 0, { reserved: 1, running: 1 });
    expect(lane.extra).toBe(1);
    expect(lane.boost).toBe(1); // the weight was given back meanwhile
  });

  it("holds between half the target and the target (hysteresis), and a wait there resets the calm count", () => {
    const lane = new WaitTargetLane(500, 0);
    lane.boost = 4;
    lane.extra = 3;
    for (let i = 0, from = 0; i < 20; i++, from += 1_000) {
      const waitMs = i % 3 === 2 ? 400 : 0; // every third window has a wait above half the target
      expect(window(lane, from, waitMs, { reserved: 3, running: 0 })?.step).toBe("hold");
    }
    expect(lane.boost).toBe(4);
    expect(lane.extra).toBe(3);
  });

  it("never gives back below the configured share", () => {
    const lane = new WaitTargetLane(500, 0);
    for (let i = 0; i < 30; i++) window(lane, i * 1_000, 0, { running: 0 });
    expect(lane.boost).toBe(1);
    expect(lane.extra).toBe(0);
  });
});

describe("effectiveOptions", () => {
  const options = resolveOptions({
    maxConcurrency: 8,
    priorities: {
      interactive: { weight: 5, reserved: 1, targetWaitMs: 500 },
      batch: { weight: 1, reserved: 2 },
    },
  });

  it("applies the lane's boost and extra reserve over the configured values", () => {
    const lane = new WaitTargetLane(500, 0);
    lane.boost = 4;
    lane.extra = 2;
    const effective = effectiveOptions(
      options,
      new Map([["interactive", lane]]),
      options.waitTargets,
      options.maxConcurrency,
    );
    expect(effective.priorityByName.get("interactive")).toMatchObject({ weight: 20, reserved: 3 });
    expect(effective.priorityByName.get("batch")).toMatchObject({ weight: 1, reserved: 2 });
    expect(options.priorityByName.get("interactive")).toMatchObject({ weight: 5, reserved: 1 });
  });

  it("keeps reserves within the share cap and the limit, and clamps the lane to what applied", () => {
    const lane = new WaitTargetLane(500, 0);
    lane.boost = 1_000;
    lane.extra = 50;
    const effective = effectiveOptions(
      options,
      new Map([["interactive", lane]]),
      options.waitTargets,
      options.maxConcurrency,
    );
    // 0.75 of 8 = 6; batch keeps its 2, so at most 6 for interactive (6 + 2 = 8).
    expect(effective.priorityByName.get("interactive")).toMatchObject({ weight: 5 * 64, reserved: 6 });
    expect(lane.boost).toBe(64);
    expect(lane.extra).toBe(5);
  });

  it("returns the configured options themselves when nothing is raised", () => {
    const lane = new WaitTargetLane(500, 0);
    expect(
      effectiveOptions(
        options,
        new Map([["interactive", lane]]),
        options.waitTargets,
        options.maxConcurrency,
      ),
    ).toBe(options);
  });
});

import { describe, expect, it } from "vitest";
import { VirtualClock } from "../clock.js";
import type { LimitEvent } from "../events.js";
import type { LimitProposal, LimitState } from "../store.js";
import { LimitController, type ObservedTask } from "./controller.js";
import { resolveLimit, withFloor } from "./options.js";

/** A controller on a virtual clock with a recording host; `share` stands for a shared store. */
function controller(
  range = { initial: 8, min: 2, max: 64 },
  tunables = {},
  share?: (proposal: LimitProposal) => LimitState,
) {
  const clock = new VirtualClock(0);
  const config = withFloor(
    resolveLimit(range, { controller: "aimd", minSamples: 3, windowMs: 100, ...tunables }).adaptive!,
    0,
  );
  const events: LimitEvent[] = [];
  const applied: number[] = [];
  let running = 0;
  const limits = new LimitController(config, {
    clock,
    running: () => running,
    apply: (limit) => applied.push(limit),
    share,
    emit: (event) => events.push(event),
    error: (error) => {
      throw error;
    },
  });
  /** One full window: `count` tasks started now, all busy, each with a first byte of `ttfbMs`. */
  const window = (count: number, ttfbMs: number): void => {
    const tasks: ObservedTask[] = Array.from({ length: count }, () => ({
      priority: "p",
      tenant: "t",
      enqueuedAt: clock.now() - 1,
      startedAt: clock.now(),
      cost: 1,
    }));
    running = limits.limit;
    for (const task of tasks) limits.started(task);
    clock.advance(100);
    for (const task of tasks) limits.firstByte(task, ttfbMs);
    for (const task of tasks) limits.ended(task, "ok", undefined);
    clock.advance(1);
  };
  return { clock, limits, events, applied, window };
}

describe("LimitController", () => {
  it("grows by increaseStep, doubling the step after three increases in a row, at most an eighth of the limit", () => {
    const c = controller({ initial: 8, min: 2, max: 64 });
    for (let i = 0; i < 9; i++) c.window(5, 50);
    expect(c.events.map((e) => e.limit)).toEqual([9, 10, 11, 13, 15, 17, 20, 23, 26]);
    expect(c.applied).toEqual([9, 10, 11, 13, 15, 17, 20, 23, 26]);
  });

  it("goes one step at a time near the limit of the last decrease", () => {
    const c = controller({ initial: 20, min: 2, max: 64 });
    c.window(5, 50); // baseline 50; 21
    c.window(5, 100); // slow: cut from 21
    const cut = c.limits.limit;
    expect(c.events.at(-1)).toMatchObject({ reason: "latency", previous: 21 });
    c.clock.advance(2_000); // the cool-down
    for (let i = 0; i < 5; i++) c.window(5, 50);
    expect(c.events.slice(-5).map((e) => e.limit)).toEqual([cut + 1, cut + 2, cut + 3, cut + 4, cut + 5]);
  });

  it("emits nothing when a proposal does not move the limit (at max, or at the floor)", () => {
    const c = controller({ initial: 4, min: 4, max: 4 });
    for (let i = 0; i < 5; i++) c.window(5, 50);
    c.limits.ended(
      { priority: "p", tenant: "t", enqueuedAt: 0, startedAt: c.clock.now(), cost: 1 },
      "overload",
      undefined,
    );
    expect(c.events).toEqual([]);
    expect(c.applied).toEqual([]);
  });

  it("through a shared store: takes the store's answer, and names a change it did not make 'shared'", () => {
    let global: LimitState = { limit: 8, epoch: 0, changed: false };
    const proposals: LimitProposal[] = [];
    const share = (proposal: LimitProposal): LimitState => {
      proposals.push(proposal);
      // Another instance already cut the limit to 5: this proposal comes with a stale epoch.
      global = { limit: 5, epoch: 3, changed: false };
      return global;
    };
    const c = controller({ initial: 8, min: 2, max: 64 }, {}, share);
    c.limits.ended(
      { priority: "p", tenant: "t", enqueuedAt: 0, startedAt: 0, cost: 1 },
      "overload",
      undefined,
    );
    expect(proposals[0]).toMatchObject({ epoch: 0, limit: 6, floor: 2, max: 64, force: false });
    expect(c.events).toEqual([{ limit: 5, previous: 8, reason: "shared" }]);
    expect(c.applied).toEqual([5]);
  });
});

import { describe, expect, it } from "vitest";
import { flush } from "../../test/harness.js";
import { VirtualClock } from "../clock.js";
import type { LimitEvent } from "../events.js";
import type { SchedulerOptions } from "../options.js";
import { createScheduler } from "../scheduler.js";

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe("adaptive limit: options", () => {
  it("starts at initial (min when left out) and reports it as metrics().maxConcurrency", () => {
    const scheduler = createScheduler({ maxConcurrency: { initial: 8, min: 2, max: 64 } });
    expect(scheduler.maxConcurrency).toBe(8);
    expect(scheduler.metrics().maxConcurrency).toBe(8);
    expect(scheduler.options.adaptive).toMatchObject({ min: 2, max: 64, floor: 2, windowMs: 1_000 });
    expect(createScheduler({ maxConcurrency: { min: 3, max: 9 } }).maxConcurrency).toBe(3);
  });

  it("uses the delay controller with a 30 s probe unless told otherwise, and switches on update()", async () => {
    const scheduler = createScheduler({ maxConcurrency: { min: 2, max: 64 } });
    expect(scheduler.options.adaptive).toMatchObject({ controller: "delay", probeMs: 30_000 });
    await scheduler.update({ adaptive: { controller: "aimd", probeMs: 5_000 } });
    expect(scheduler.options.adaptive).toMatchObject({ controller: "aimd", probeMs: 5_000 });
    expect(() =>
      createScheduler({ maxConcurrency: { min: 2, max: 8 }, adaptive: { controller: "x" as never } }),
    ).toThrow('Expected `adaptive.controller` to be "delay" or "aimd", got `x` (string)');
  });

  it("keeps a plain number a fixed limit", () => {
    const scheduler = createScheduler({ maxConcurrency: 5 });
    expect(scheduler.options.adaptive).toBeNull();
    expect(scheduler.maxConcurrency).toBe(5);
  });

  it("holds priorities to max and lifts the floor (and a lower initial) to the sum of reserved", () => {
    const scheduler = createScheduler({
      maxConcurrency: { initial: 2, min: 1, max: 32 },
      priorities: { chat: { reserved: 3, maxConcurrency: 30 }, batch: {} },
    });
    expect(scheduler.options.adaptive?.floor).toBe(3);
    expect(scheduler.maxConcurrency).toBe(3);
    expect(scheduler.options.priorityByName.get("batch")?.maxConcurrency).toBe(32);
  });

  const invalid: Array<[string, SchedulerOptions]> = [
    ["min 0", { maxConcurrency: { min: 0, max: 4 } }],
    ["max below min", { maxConcurrency: { min: 5, max: 4 } }],
    ["initial above max", { maxConcurrency: { initial: 9, min: 1, max: 8 } }],
    ["initial below min", { maxConcurrency: { initial: 1, min: 2, max: 8 } }],
    ["a fractional bound", { maxConcurrency: { min: 1.5, max: 8 } }],
    ["no max", { maxConcurrency: { min: 1 } as never }],
    ["an unknown range key", { maxConcurrency: { min: 1, max: 8, maximum: 9 } as never }],
    ["an unknown tunable", { maxConcurrency: { min: 1, max: 8 }, adaptive: { windowMS: 5 } as never }],
    ["adaptive with a fixed limit", { maxConcurrency: 8, adaptive: {} }],
    ["a factor of 1", { maxConcurrency: { min: 1, max: 8 }, adaptive: { overloadFactor: 1 } }],
    ["a tolerance of 1", { maxConcurrency: { min: 1, max: 8 }, adaptive: { latencyTolerance: 1 } }],
    ["zero samples", { maxConcurrency: { min: 1, max: 8 }, adaptive: { minSamples: 0 } }],
    [
      "an unknown controller",
      { maxConcurrency: { min: 1, max: 8 }, adaptive: { controller: "pid" as never } },
    ],
    ["a probe under 1 s", { maxConcurrency: { min: 1, max: 8 }, adaptive: { probeMs: 999 } }],
    ["reserved above max", { maxConcurrency: { min: 1, max: 2 }, priorities: { a: { reserved: 3 } } }],
  ];
  for (const [name, options] of invalid) {
    it(`refuses ${name} with INVALID_OPTION`, () => {
      expect(codeOf(() => createScheduler(options))).toBe("INVALID_OPTION");
    });
  }

  it("names the unknown key and its nearest known one", () => {
    expect(() =>
      createScheduler({ maxConcurrency: { min: 1, max: 8 }, adaptive: { windowMS: 5 } as never }),
    ).toThrow(/`adaptive.windowMS`; did you mean `windowMs`/);
  });
});

describe("adaptive limit: update()", () => {
  function adaptive() {
    const clock = new VirtualClock(0);
    const scheduler = createScheduler({
      clock,
      maxConcurrency: { initial: 8, min: 2, max: 16 },
      priorities: { work: {} },
    });
    const events: LimitEvent[] = [];
    scheduler.on("limit", (event) => events.push(event));
    return { scheduler, events };
  }

  it("takes a number as the limit to go on from, within the range, and stays adaptive", async () => {
    const { scheduler, events } = adaptive();
    await scheduler.update({ maxConcurrency: 12 });
    expect(scheduler.maxConcurrency).toBe(12);
    expect(scheduler.options.adaptive).not.toBeNull();
    expect(events).toEqual([{ limit: 12, previous: 8, reason: "update" }]);
    expect(codeOf(() => scheduler.update({ maxConcurrency: 17 }))).toBe("INVALID_OPTION");
    expect(scheduler.maxConcurrency).toBe(12);
  });

  it("moves the limit into a new range, and keeps it across other updates", async () => {
    const { scheduler, events } = adaptive();
    await scheduler.update({ maxConcurrency: { min: 2, max: 6 } });
    expect(scheduler.maxConcurrency).toBe(6);
    await scheduler.update({ priorities: { work: { weight: 2 } }, adaptive: { windowMs: 500 } });
    expect(scheduler.maxConcurrency).toBe(6);
    expect(scheduler.options.adaptive?.windowMs).toBe(500);
    await scheduler.update({ maxConcurrency: { initial: 3, min: 2, max: 6 } });
    expect(scheduler.maxConcurrency).toBe(3);
    expect(events.map((e) => e.limit)).toEqual([6, 3]);
  });

  it("turns a fixed scheduler adaptive with a range, and the new limit reaches the store", async () => {
    const clock = new VirtualClock(0);
    const scheduler = createScheduler({ clock, maxConcurrency: 1, priorities: { work: {} } });
    await scheduler.update({ maxConcurrency: { initial: 3, min: 1, max: 4 } });
    expect(scheduler.maxConcurrency).toBe(3);
    let running = 0;
    for (let i = 0; i < 5; i++) void scheduler.run(() => new Promise(() => running++));
    await flush();
    expect(running).toBe(3);
    expect(codeOf(() => scheduler.update({ adaptive: { nope: 1 } as never }))).toBe("INVALID_OPTION");
  });
});

import { describe, expect, it } from "vitest";
import { createScheduler } from "../scheduler.js";

const invalid = (message: string) =>
  expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringContaining(message) });
const withTarget = (targetWaitMs: unknown) => ({
  priorities: { interactive: { targetWaitMs }, batch: {} },
});

describe("wait-target options", () => {
  it("accepts a target and fills the controller's defaults", () => {
    const { waitTargets } = createScheduler(withTarget(500) as never).options;
    expect([...waitTargets.targets]).toEqual([["interactive", 500]]);
    expect(waitTargets).toMatchObject({
      windowMs: 5_000,
      minSamples: 20,
      calmWindows: 3,
      maxBoost: 64,
      maxReservedShare: 0.75,
    });
  });

  it.each([0, -1, 3_600_001, Number.NaN, Number.POSITIVE_INFINITY, "500", null])(
    "rejects targetWaitMs %p",
    (value) => {
      expect(() => createScheduler(withTarget(value) as never)).toThrow(
        invalid("Expected `priorities.interactive.targetWaitMs` to be a number in (0, 3600000]"),
      );
    },
  );

  it.each([
    [{ windowMs: 0 }, "Expected `waitTargets.windowMs`"],
    [{ minSamples: 0.5 }, "Expected `waitTargets.minSamples` to be an integer from 1 to 100000"],
    [{ calmWindows: 0 }, "Expected `waitTargets.calmWindows` to be an integer from 1 to 1000"],
    [{ maxBoost: 0.5 }, "Expected `waitTargets.maxBoost` to be a number from 1 to 10000"],
    [{ maxReservedShare: 1.5 }, "Expected `waitTargets.maxReservedShare` to be a number from 0 to 1"],
    [{ windowMS: 5 }, "Unknown option `waitTargets.windowMS`; did you mean `windowMs`?"],
    [[], "Expected `waitTargets` to be an object"],
  ])("rejects waitTargets %j", (waitTargets, message) => {
    expect(() => createScheduler({ waitTargets } as never)).toThrow(invalid(message));
  });

  it("takes targets and settings from update(), and refuses bad ones without changing anything", async () => {
    const scheduler = createScheduler();
    await scheduler.update({
      priorities: { interactive: { targetWaitMs: 300 } },
      waitTargets: { windowMs: 1_000 },
    });
    expect([...scheduler.options.waitTargets.targets]).toEqual([["interactive", 300]]);
    expect(scheduler.options.waitTargets.windowMs).toBe(1_000);
    expect(() => scheduler.update({ waitTargets: { minSamples: 0 } })).toThrow(invalid("minSamples"));
    expect(() => scheduler.update({ waitTargets: 5 as never })).toThrow(invalid("`waitTargets`"));
    expect(scheduler.options.waitTargets.minSamples).toBe(20);
    expect(scheduler.metrics().priorities.interactive?.share?.targetWaitMs).toBe(300);
  });
});

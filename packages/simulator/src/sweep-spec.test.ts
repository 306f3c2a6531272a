import { describe, expect, it } from "vitest";
import type { Scenario } from "./scenario.js";
import { ScenarioError } from "./scenario-error.js";
import { parseSweep, sweepVariants } from "./sweep-spec.js";

const names = ["interactive", "batch"];

describe("parseSweep", () => {
  it("maps short names to scenario paths and reads numbers, Infinity and words", () => {
    expect(
      parseSweep(["batch.weight=1,2,4", "maxConcurrency=6,8", "chat.timeoutMs=1000,Infinity"], names),
    ).toEqual([
      { name: "batch.weight", path: ["scheduler", "priorities", "batch", "weight"], values: [1, 2, 4] },
      { name: "maxConcurrency", path: ["gateway", "maxConcurrency"], values: [6, 8] },
      { name: "chat.timeoutMs", path: ["chat", "timeoutMs"], values: [1000, "Infinity"] },
    ]);
  });

  it.each(["batch.weight", "=1,2", "batch.weight=", "batch..weight=1"])("refuses %j", (spec) => {
    expect(() => parseSweep([spec], names)).toThrow(ScenarioError);
  });
});

describe("sweepVariants", () => {
  const scenario: Scenario = { durationMs: 1_000 };

  it("tries every combination, the first axis changing slowest", () => {
    const axes = parseSweep(["batch.weight=1,2", "interactive.reserved=0,1,2"], names);
    const variants = sweepVariants(scenario, 4, axes);
    expect(variants.map((variant) => variant.label)).toEqual([
      "batch.weight=1 interactive.reserved=0",
      "batch.weight=1 interactive.reserved=1",
      "batch.weight=1 interactive.reserved=2",
      "batch.weight=2 interactive.reserved=0",
      "batch.weight=2 interactive.reserved=1",
      "batch.weight=2 interactive.reserved=2",
    ]);
  });

  it("writes core's default priorities out before changing one field, and leaves the original alone", () => {
    const [variant] = sweepVariants(scenario, 4, parseSweep(["batch.weight=3"], names));
    expect(variant?.scenario.scheduler?.priorities).toEqual({
      interactive: {
        weight: 5,
        reserved: 1,
        queueTimeoutMs: 10_000,
        maxQueue: 1_000,
        maxWaitMs: Number.POSITIVE_INFINITY,
      },
      batch: { weight: 3, reserved: 0, queueTimeoutMs: 600_000, maxQueue: 100_000, maxWaitMs: 60_000 },
    });
    expect(scenario.scheduler).toBeUndefined();
  });

  it("refuses a sweep too large to run", () => {
    const many = Array.from({ length: 30 }, (_, i) => i + 1).join(",");
    expect(() =>
      sweepVariants(scenario, 4, parseSweep([`batch.weight=${many}`, `interactive.weight=${many}`], names)),
    ).toThrow("at most 500");
  });
});

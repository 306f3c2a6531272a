import { describe, expect, it } from "vitest";
import { checkGoal, describeGoal, pickBest } from "./goal.js";
import type { ResolvedGoal } from "./scenario-resolve.js";
import type { RunResult } from "./stats.js";

const goal: ResolvedGoal = {
  interactiveWaitP95Ms: 1_000,
  interactiveTtftP95Ms: Number.POSITIVE_INFINITY,
  maxUnanswered: 0,
};

/** Just the fields the goal reads. */
function run(p95: number, throughputPerSec: number, unanswered = 0): RunResult {
  return {
    interactive: { waitMs: { p95 }, ttftMs: { p95: 0 }, unanswered },
    batch: { throughputPerSec },
  } as unknown as RunResult;
}

describe("goal", () => {
  it("lists the constraints a run misses", () => {
    expect(checkGoal(run(500, 1), goal)).toEqual({ met: true, misses: [] });
    expect(checkGoal(run(1_500, 1, 2), goal)).toEqual({
      met: false,
      misses: ["interactive wait p95", "unanswered"],
    });
  });

  it("picks the most batch throughput among the runs that meet the goal", () => {
    expect(pickBest([run(900, 5), run(200, 4), run(2_000, 9), run(950, 5)], goal)).toEqual({
      index: 0,
      met: true,
    });
    expect(pickBest([run(900, 5), run(100, 5)], goal)).toEqual({ index: 1, met: true });
  });

  it("falls back to the lowest interactive wait when nothing meets the goal", () => {
    expect(pickBest([run(3_000, 9), run(1_200, 1), run(2_000, 5)], goal)).toEqual({ index: 1, met: false });
    expect(pickBest([], goal)).toBeUndefined();
  });

  it("states the goal in words", () => {
    expect(describeGoal(goal)).toBe(
      "interactive wait p95 <= 1000 ms, at most 0 unanswered; then the most batch throughput",
    );
  });
});

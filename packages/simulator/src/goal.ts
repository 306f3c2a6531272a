import { formatDuration } from "./format.js";
import type { ResolvedGoal } from "./scenario-resolve.js";
import type { RunResult } from "./stats.js";

/** Whether a run meets the goal's constraints, and which it misses. */
export interface GoalCheck {
  readonly met: boolean;
  readonly misses: readonly string[];
}

/**
 * Checks a run against the goal's constraints (interactive wait p95, and optionally TTFT p95 and the
 * number of unanswered chat requests).
 *
 * @example
 * checkGoal(result, { interactiveWaitP95Ms: 1_000, interactiveTtftP95Ms: Infinity, maxUnanswered: Infinity });
 */
export function checkGoal(result: RunResult, goal: ResolvedGoal): GoalCheck {
  const misses: string[] = [];
  const { waitMs, ttftMs, unanswered } = result.interactive;
  if (waitMs.p95 > goal.interactiveWaitP95Ms) misses.push("interactive wait p95");
  if (ttftMs.p95 > goal.interactiveTtftP95Ms) misses.push("interactive TTFT p95");
  if (unanswered > goal.maxUnanswered) misses.push("unanswered");
  return { met: misses.length === 0, misses };
}

/**
 * The best run for the goal: among the runs that meet every constraint, the one with the most batch
 * throughput (ties: the lower interactive wait p95, then the earlier run). When none meets the goal,
 * the one with the lowest interactive wait p95, with `met: false`. `undefined` for no runs.
 *
 * @example
 * const best = pickBest(results, scenario.goal);
 * if (best?.met) console.log(`best: ${results[best.index].label}`);
 */
export function pickBest(
  results: readonly RunResult[],
  goal: ResolvedGoal,
): { readonly index: number; readonly met: boolean } | undefined {
  let best: { index: number; met: boolean } | undefined;
  results.forEach((result, index) => {
    const met = checkGoal(result, goal).met;
    if (best === undefined) {
      best = { index, met };
      return;
    }
    const current = results[best.index]!;
    const better = met
      ? !best.met ||
        result.batch.throughputPerSec > current.batch.throughputPerSec + 1e-9 ||
        (Math.abs(result.batch.throughputPerSec - current.batch.throughputPerSec) <= 1e-9 &&
          result.interactive.waitMs.p95 < current.interactive.waitMs.p95)
      : !best.met && result.interactive.waitMs.p95 < current.interactive.waitMs.p95;
    if (better) best = { index, met };
  });
  return best;
}

/** The goal in words: `interactive wait p95 <= 1000 ms, then the most batch throughput`. */
export function describeGoal(goal: ResolvedGoal): string {
  const parts = [`interactive wait p95 <= ${formatDuration(goal.interactiveWaitP95Ms)}`];
  if (goal.interactiveTtftP95Ms !== Number.POSITIVE_INFINITY) {
    parts.push(`interactive TTFT p95 <= ${formatDuration(goal.interactiveTtftP95Ms)}`);
  }
  if (goal.maxUnanswered !== Number.POSITIVE_INFINITY) parts.push(`at most ${goal.maxUnanswered} unanswered`);
  return `${parts.join(", ")}; then the most batch throughput`;
}

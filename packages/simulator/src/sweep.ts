import { formatDuration, formatRate, formatShare, layoutTable } from "./format.js";
import { checkGoal, describeGoal, type GoalCheck, pickBest } from "./goal.js";
import { makespanVsIdeal } from "./ideal.js";
import type { Scenario } from "./scenario.js";
import { ScenarioError } from "./scenario-error.js";
import { type ResolvedScenario, resolveScenario } from "./scenario-resolve.js";
import { simulate } from "./simulate.js";
import type { RunResult } from "./stats.js";
import { type SweepAxis, type SweepVariant, sweepVariants } from "./sweep-spec.js";
import { winningConfig } from "./sweep-winner.js";
import { generateWorkload } from "./workload.js";

/** One configuration of a sweep and how it did. */
export interface SweepRow {
  readonly variant: SweepVariant;
  readonly result: RunResult;
  readonly check: GoalCheck;
}

/** The outcome of {@link runSweep}. */
export interface SweepOutcome {
  readonly scenario: ResolvedScenario;
  readonly baseline: RunResult;
  readonly rows: readonly SweepRow[];
  /** Index into `rows` of the best configuration, and whether it meets the goal. */
  readonly best: { readonly index: number; readonly met: boolean } | undefined;
}

function resolveVariant(variant: SweepVariant): ResolvedScenario {
  try {
    return resolveScenario(variant.scenario);
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
    throw new ScenarioError(error.field, `With ${variant.label}: ${error.message}`, { cause: error });
  }
}

/**
 * Runs the FIFO baseline once and llm-scheduler once per combination of the axes, all on the same
 * workload (the sweep changes the gateway, never the traffic), and picks the best configuration for
 * the scenario's goal. Every variant is validated before anything runs.
 *
 * @example
 * const axes = parseSweep(["batch.weight=1,2,4", "interactive.reserved=0,1,2"], ["interactive", "batch"]);
 * const outcome = await runSweep(rawScenario, axes);
 * console.log(renderSweep(outcome));
 */
export async function runSweep(
  scenario: Scenario,
  axes: readonly SweepAxis[],
  onProgress?: (done: number, total: number) => void,
): Promise<SweepOutcome> {
  const resolved = resolveScenario(scenario);
  const variants = sweepVariants(scenario, resolved.maxConcurrency, axes);
  const scenarios = variants.map(resolveVariant);
  const workload = generateWorkload(resolved);
  const baseline = await simulate(resolved, { gateway: "fifo", workload });
  const rows: SweepRow[] = [];
  for (const [index, variant] of variants.entries()) {
    onProgress?.(index, variants.length);
    const result = await simulate(scenarios[index]!, {
      gateway: "scheduler",
      workload,
      label: variant.label,
    });
    rows.push({ variant, result, check: checkGoal(result, resolved.goal) });
  }
  onProgress?.(variants.length, variants.length);
  const best = pickBest(
    rows.map((row) => row.result),
    resolved.goal,
  );
  return { scenario: resolved, baseline, rows, best };
}

function cells(result: RunResult, baseline: RunResult): string[] {
  return [
    formatDuration(result.interactive.waitMs.p95),
    formatDuration(result.interactive.waitMs.p99),
    formatDuration(result.interactive.ttftMs.p95),
    String(result.interactive.unanswered),
    String(result.interactive.timeouts + result.interactive.rejected429),
    formatRate(result.batch.throughputPerSec),
    formatDuration(result.batch.makespanMs),
    `${makespanVsIdeal(baseline, result).ratio.toFixed(2)}x`,
    formatShare(result.slots.utilizationWhileWaiting),
    formatDuration(result.batch.longestWaitMs),
  ];
}

/**
 * The sweep as one table: the FIFO baseline, then each configuration, the best one marked only if it
 * met the goal, the goal stated under it and, when one met it, the winning configuration ready to paste
 * (see {@link winningConfig}).
 *
 * @example
 * console.log(renderSweep(await runSweep(scenario, axes)));
 */
export function renderSweep(outcome: SweepOutcome): string {
  const names = outcome.rows[0]?.variant.settings.map((setting) => setting.name) ?? [];
  const header = [
    "",
    ...names,
    "wait p95",
    "wait p99",
    "TTFT p95",
    "unanswered",
    "timeouts+429",
    "batch/s",
    "makespan",
    "vs ideal",
    "busy",
    "max batch wait",
    "goal",
  ];
  const rows: string[][] = [
    header,
    ["FIFO", ...names.map(() => "-"), ...cells(outcome.baseline, outcome.baseline), ""],
  ];
  outcome.rows.forEach((row, index) => {
    // Only a configuration that met the goal is marked: a miss is nothing to recommend.
    const isBest = outcome.best?.met === true && outcome.best.index === index;
    rows.push([
      isBest ? "best ->" : "",
      ...row.variant.settings.map((setting) => String(setting.value)),
      ...cells(row.result, outcome.baseline),
      row.check.met ? "met" : `missed: ${row.check.misses.join(", ")}`,
    ]);
  });
  const verdict =
    outcome.best === undefined
      ? "nothing to compare"
      : outcome.best.met
        ? `best for the goal: ${outcome.rows[outcome.best.index]!.variant.label}`
        : `no configuration met the goal (the closest, by interactive wait p95: ${outcome.rows[outcome.best.index]!.variant.label}); try other values or a looser goal`;
  const paste = winningConfig(outcome);
  return [
    layoutTable(rows, 2),
    "",
    `goal: ${describeGoal(outcome.scenario.goal)}`,
    verdict,
    "(wait: interactive queue wait per attempt; TTFT: per chat request, retries included; vs ideal: batch makespan over the work-conserving ideal; busy: slots busy while anything waited)",
    ...(paste === undefined ? [] : ["", paste]),
  ].join("\n");
}

// The day-long scenario of the wait-target benchmark, its scaled-down CI variant, and what is measured
// of each run: the interactive p95 queue wait of every hour and the batch throughput.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { percentiles, type RunResult, type Scenario } from "@llm-scheduler/simulator";
import { repoRoot } from "../lib/node-child.js";

/** examples/scenarios/day-targets.json, with every duration and the batch size divided by `scale`. */
export function dayScenario(scale: number): Scenario {
  const file = join(repoRoot, "examples/scenarios/day-targets.json");
  const raw = JSON.parse(readFileSync(file, "utf8")) as Scenario & {
    chat: { rateSchedule: { stepMs: number; ratesPerSec: number[] } };
  };
  if (scale === 1) return raw;
  const tenants = (raw.batch?.tenants ?? []).map((t) => ({ ...t, items: Math.round(t.items / scale) }));
  return {
    ...raw,
    durationMs: raw.durationMs / scale,
    chat: {
      ...raw.chat,
      rateSchedule: { ...raw.chat.rateSchedule, stepMs: raw.chat.rateSchedule.stepMs / scale },
    },
    batch: { ...raw.batch, tenants },
  };
}

/** The scenario with fixed interactive settings instead of the wait target. */
export function fixedScenario(base: Scenario, weight: number, reserved: number): Scenario {
  const priorities = { ...base.scheduler?.priorities };
  const { targetWaitMs: _dropped, ...interactive } = priorities.interactive ?? {};
  priorities.interactive = { ...interactive, weight, reserved };
  return { ...base, scheduler: { ...base.scheduler, priorities } };
}

/** What one run is judged on. */
export interface DayMeasure {
  readonly label: string;
  /** Interactive p95 queue wait of each step (hour) of the rate schedule, ms. */
  readonly hourlyP95: readonly number[];
  readonly worstHourP95: number;
  readonly dayP95: number;
  /** Batch items started during the chat period, per second of it (every run still has a backlog then). */
  readonly batchDayPerSec: number;
  /** Items done per second of batch makespan (the tail after the day included). */
  readonly batchPerSec: number;
  readonly makespanMs: number;
  readonly unanswered: number;
}

/** Per-hour p95 of the chat priority's queue waits (by when each wait ended), over the chat period. */
export function measureDay(result: RunResult, stepMs: number, durationMs: number): DayMeasure {
  const timeline = result.waitTimeline[result.priorities.chat] ?? { at: [], waitMs: [] };
  const steps = Math.ceil(durationMs / stepMs);
  const buckets: number[][] = Array.from({ length: steps }, () => []);
  timeline.at.forEach((at, i) => {
    if (at < durationMs) buckets[Math.floor(at / stepMs)]!.push(timeline.waitMs[i]!);
  });
  const batch = result.waitTimeline[result.priorities.batch] ?? { at: [], waitMs: [] };
  const batchStarted = batch.at.filter((at) => at < durationMs).length;
  const hourlyP95 = buckets.map((waits) => percentiles(waits.sort((a, b) => a - b)).p95);
  return {
    label: result.label,
    hourlyP95,
    worstHourP95: Math.max(...hourlyP95),
    dayP95: result.interactive.waitMs.p95,
    batchDayPerSec: batchStarted / (durationMs / 1_000),
    batchPerSec: result.batch.throughputPerSec,
    makespanMs: result.batch.makespanMs,
    unanswered: result.interactive.unanswered + result.batch.unanswered,
  };
}

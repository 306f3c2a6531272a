// Part 12: wait-time targets in virtual time: a 500 ms p95 target for chat through a day whose load
// changes hourly, against the best FIXED weight and reserve a sweep of the same day finds.
import { generateWorkload, resolveScenario, simulate } from "@llm-scheduler/simulator";
import { num, ratio } from "../lib/format.js";
import type { Part } from "../lib/part.js";
import type { Goal } from "../lib/report.js";
import { type DayMeasure, dayScenario, fixedScenario, measureDay } from "../targets/day.js";

const TARGET_MS = 500;
const ms = (value: number): string => `${num(value)} ms`;
const hours = (value: number): string => `${(value / 3_600_000).toFixed(2)} h`;

function row(measure: DayMeasure, holds: string): string[] {
  return [
    measure.label,
    ms(measure.worstHourP95),
    ms(measure.dayP95),
    `${measure.batchDayPerSec.toFixed(3)} /s`,
    `${measure.batchPerSec.toFixed(3)} /s`,
    hours(measure.makespanMs),
    String(measure.unanswered),
    holds,
  ];
}

/** The fixed configuration with the most batch throughput among those that pass `ok`. */
function bestOf(measures: readonly DayMeasure[], ok: (m: DayMeasure) => boolean): DayMeasure | undefined {
  return measures.filter(ok).sort((a, b) => b.batchDayPerSec - a.batchDayPerSec)[0];
}

export const run: Part = async ({ quick, log }) => {
  const scale = quick ? 24 : 1;
  const raw = dayScenario(scale);
  const scenario = resolveScenario(raw);
  const stepMs = scenario.chat.rateSchedule!.stepMs;
  const workload = generateWorkload(scenario);
  const day = (result: Awaited<ReturnType<typeof simulate>>) =>
    measureDay(result, stepMs, scenario.durationMs);
  const started = performance.now();
  const target = day(await simulate(scenario, { gateway: "scheduler", workload, label: "targetWaitMs 500" }));
  log(`wait target: worst hour p95 ${ms(target.worstHourP95)}, batch ${target.batchDayPerSec.toFixed(3)}/s`);
  const weights = quick ? [5] : [5, 50];
  const reserves = quick ? [0, 4, 8, 12] : [0, 4, 8, 9, 10, 11, 12, 14];
  const fixed: DayMeasure[] = [];
  for (const weight of weights) {
    for (const reserved of reserves) {
      const variant = resolveScenario(fixedScenario(raw, weight, reserved));
      const label = `fixed weight ${weight}, reserved ${reserved}`;
      fixed.push(day(await simulate(variant, { gateway: "scheduler", workload, label })));
      log(
        `${label}: worst hour p95 ${ms(fixed.at(-1)!.worstHourP95)}, batch ${fixed.at(-1)!.batchDayPerSec.toFixed(3)}/s`,
      );
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const everyHour = (m: DayMeasure) => m.worstHourP95 <= TARGET_MS && m.unanswered === 0;
  const wholeDay = (m: DayMeasure) => m.dayP95 <= TARGET_MS && m.unanswered === 0;
  const bestHourly = bestOf(fixed, everyHour);
  const bestDaily = bestOf(fixed, wholeDay);
  const gain =
    bestHourly === undefined ? Number.POSITIVE_INFINITY : target.batchDayPerSec / bestHourly.batchDayPerSec;
  const gainDaily =
    bestDaily === undefined ? Number.POSITIVE_INFINITY : target.batchDayPerSec / bestDaily.batchDayPerSec;
  const holds = (m: DayMeasure) => (everyHour(m) ? "every hour" : wholeDay(m) ? "whole day only" : "no");
  const goals: Goal[] = [
    {
      name: `with interactive targetWaitMs ${TARGET_MS}: interactive p95 queue wait at most ${TARGET_MS} ms in every hour of the day, nothing unanswered`,
      target: `<= ${TARGET_MS} ms`,
      measured: `worst hour ${ms(target.worstHourP95)}, ${target.unanswered} unanswered`,
      holds: everyHour(target),
    },
    {
      name: "batch throughput over the day with the target above the best fixed weight and reserve that also hold it in every hour (same-run ratio)",
      target: "> 1.00x",
      measured:
        bestHourly === undefined
          ? "no fixed configuration held it"
          : `${ratio(gain)} (${target.batchDayPerSec.toFixed(3)}/s vs ${bestHourly.batchDayPerSec.toFixed(3)}/s, ${bestHourly.label})`,
      holds: gain > 1,
    },
  ];
  return {
    part: "targets",
    title: "Wait-time targets: a 500 ms chat target through a day of changing load, in virtual time",
    method: [
      `The real core in the simulator (VirtualClock, upstream-sim latency model) on examples/scenarios/day-targets.json${quick ? `, scaled down ${scale}x (an "hour" of ${num(stepMs / 1000)} s, ${num(scenario.batch.tenants[0]!.items)} batch items)` : ""}: 16 sequences, chat Poisson at a rate that changes every hour (0.2/s at night to 4.5/s in the afternoon), a backfill of ${num(scenario.batch.tenants[0]!.items)} long batch generations (200-600 output tokens) from the start.`,
      `One run with interactive ${JSON.stringify(raw.scheduler?.priorities?.interactive)} and the controller's defaults; then a sweep of fixed interactive settings (weight ${weights.join(", ")} × reserved ${reserves.join(", ")}) on the same workload, same seed.`,
      "An hour's p95 is over the queue waits of chat attempts that ended in that hour. Batch throughput over the day: batch items started during the 24 hours of chat, per second (the backlog outlasts the day in every run, so this is the share of the server batch got); beside it, items done per second of the whole batch makespan, whose tail after the day has no chat at all.",
      `Simulated ${fixed.length + 1} days in ${num(seconds, 1)} s of real time.`,
    ],
    tables: [
      {
        title: "Chat wait and batch throughput, wait target against fixed settings",
        columns: [
          "configuration",
          "worst hour p95",
          "day p95",
          "batch over the day",
          "batch over its makespan",
          "batch makespan",
          "unanswered",
          `p95 <= ${TARGET_MS} ms`,
        ],
        rows: [row(target, holds(target)), ...fixed.map((m) => row(m, holds(m)))],
        note: `best fixed holding the target every hour: ${bestHourly?.label ?? "none"}; over the whole day only: ${bestDaily?.label ?? "none"} (the target run's batch throughput over the day is ${ratio(gainDaily)} of it)`,
      },
      {
        title: "Interactive p95 queue wait per hour (ms)",
        columns: ["configuration", ...target.hourlyP95.map((_, i) => String(i))],
        rows: [
          target,
          ...(bestHourly ? [bestHourly] : []),
          ...(bestDaily && bestDaily !== bestHourly ? [bestDaily] : []),
        ].map((m) => [m.label, ...m.hourlyP95.map((v) => num(v))]),
      },
    ],
    goals,
    notes: [],
    raw: { scale, target, fixed },
  };
};

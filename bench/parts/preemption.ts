// Part: preemption under a flood of ten-minute batch generations, in virtual time.

import type { Part } from "../lib/part.js";
import type { Goal } from "../lib/report.js";
import { quantile } from "../lib/stats.js";
import { type FloodRun, type FloodScenario, simulateFlood } from "../preemption/simulate.js";

const seconds = (ms: number): string => (ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);
const minutes = (ms: number): string => `${(ms / 60_000).toFixed(1)} min`;

function row(name: string, run: FloodRun, tasks: number): string[] {
  return [
    name,
    seconds(quantile(run.chatWaitsMs, 0.5)),
    seconds(quantile(run.chatWaitsMs, 0.95)),
    seconds(Math.max(...run.chatWaitsMs)),
    `${run.batchCompleted}/${tasks}`,
    minutes(run.batchMakespanMs),
    String(run.preemptions),
    String(run.maxPreemptionsPerTask),
    minutes(run.wastedMs),
    String(run.peakRunning),
  ];
}

export const run: Part = async ({ quick, log }) => {
  const scenario: FloodScenario = {
    maxConcurrency: 8,
    batchTasks: quick ? 24 : 96,
    batchMs: 600_000,
    chatGapMs: 60_000,
    chatMs: 5_000,
    cancelMs: 100,
    maxPerTask: 2,
    seed: 14,
  };
  const without = await simulateFlood(scenario, false);
  const withPreemption = await simulateFlood(scenario, true);
  log(`simulated ${minutes(withPreemption.batchMakespanMs)} of virtual time twice`);
  const p95 = quantile(withPreemption.chatWaitsMs, 0.95);
  const makespanRatio = withPreemption.batchMakespanMs / without.batchMakespanMs;
  const goals: Goal[] = [
    {
      name: "with preemption and no reserved slot, interactive p95 queue wait under a flood of ten-minute batch generations",
      target: "< 1 s",
      measured: seconds(p95),
      holds: p95 < 1_000,
    },
    {
      name: "no task preempted more than maxPerTask times",
      target: `<= ${scenario.maxPerTask}`,
      measured: String(withPreemption.maxPreemptionsPerTask),
      holds: withPreemption.maxPreemptionsPerTask <= scenario.maxPerTask,
    },
    {
      name: "every batch task completes (none failed, none lost)",
      target: `${scenario.batchTasks}/${scenario.batchTasks}`,
      measured: `${withPreemption.batchCompleted}/${scenario.batchTasks}`,
      holds: withPreemption.batchCompleted === scenario.batchTasks && withPreemption.batchFailed === 0,
    },
    {
      name: "the upstream never sees more than maxConcurrency calls, victims winding down included",
      target: `<= ${scenario.maxConcurrency}`,
      measured: String(withPreemption.peakRunning),
      holds: withPreemption.peakRunning <= scenario.maxConcurrency,
    },
  ];
  return {
    part: "preemption",
    title: "Preemption under a flood of ten-minute batch generations, in virtual time",
    method: [
      `The real core on a VirtualClock, maxConcurrency ${scenario.maxConcurrency}, no reserved slot; priorities interactive (weight 5) and batch (weight 1). ${scenario.batchTasks} batch generations of ${minutes(scenario.batchMs)} each are queued at time 0; chat requests of ${seconds(scenario.chatMs)} arrive with exponential gaps of mean ${seconds(scenario.chatGapMs)} (seeded, the same in both runs) while batch work is left.`,
      `With preemption: \`interactive: { preempts: ["batch"] }\`, \`batch: { preemptible: { maxPerTask: ${scenario.maxPerTask} } }\`. A stopped upstream call ends ${scenario.cancelMs} ms after its signal fires; the slot goes to the chat request only then.`,
      "Wasted work is the run time of the preempted runs (thrown away); the peak counts upstream calls from their start to their real end.",
    ],
    tables: [
      {
        title: "Chat queue wait, batch completion and the price of preemption",
        columns: [
          "run",
          "chat wait p50",
          "chat wait p95",
          "chat wait max",
          "batch completed",
          "batch makespan",
          "preemptions",
          "most per task",
          "work wasted",
          "peak in flight",
        ],
        rows: [
          row("no preemption", without, scenario.batchTasks),
          row("preemption", withPreemption, scenario.batchTasks),
        ],
        note: `Batch makespan with preemption is ${makespanRatio.toFixed(3)}x that without (same run).`,
      },
    ],
    goals,
    notes: [],
    raw: { scenario, without, withPreemption, makespanRatio },
  };
};

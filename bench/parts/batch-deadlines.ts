// Part: batches that meet their window. The same seeded batch workload, run twice in virtual time
// through the real batch layer and scheduler: earliest deadline first across batches, and FIFO across
// batches (oldest batch first); the share of batches that end within their completion window, and the
// error of the completion estimate read at a quarter of each batch's items.
import { readFileSync } from "node:fs";
import {
  type BatchWindowResult,
  resolveScenario,
  type Scenario,
  simulateBatchWindows,
} from "@llm-scheduler/simulator";
import { num, ratio } from "../lib/format.js";
import { benchFile } from "../lib/node-child.js";
import type { Part } from "../lib/part.js";
import type { Goal } from "../lib/report.js";

const SCENARIO = "../examples/scenarios/batch-windows.json";
const pct = (share: number, digits = 1): string => `${(share * 100).toFixed(digits)}%`;

type Outcome = BatchWindowResult["batches"][number];
const estimated = (b: Outcome): boolean => b.status === "completed" && b.estimateAtQuarter !== null;
const within20 = (b: Outcome): boolean =>
  Math.abs(b.estimateAtQuarter! - b.endedAt) <= 0.2 * (b.endedAt - b.createdAt);

/**
 * The estimated batches that no batch created after the estimate was read passed (ended before them):
 * what the estimate can know of at that moment.
 */
function notPassedLater(batches: readonly Outcome[]): Outcome[] {
  return batches
    .filter(estimated)
    .filter((b) => !batches.some((c) => c.createdAt > b.quarterAt! && c.endedAt < b.endedAt));
}

function shareWithin20(batches: readonly Outcome[]): number {
  return batches.length === 0 ? 0 : batches.filter(within20).length / batches.length;
}

function row(result: BatchWindowResult): string[] {
  const { estimateError: e, batches } = result;
  const known = notPassedLater(batches);
  return [
    result.label,
    String(batches.length),
    pct(result.withinWindow),
    String(batches.filter((b) => b.status === "expired").length),
    pct(e.p50),
    pct(e.p95),
    pct(shareWithin20(batches.filter(estimated))),
    `${pct(shareWithin20(known))} of ${known.length}`,
  ];
}

export const run: Part = async ({ quick, log }) => {
  const raw = JSON.parse(readFileSync(benchFile(SCENARIO), "utf8")) as Scenario;
  const jobs = raw.batch!.jobs!;
  const sized: Scenario = quick
    ? {
        ...raw,
        durationMs: raw.durationMs / 8,
        batch: { ...raw.batch, jobs: { ...jobs, count: Math.ceil(jobs.count / 8) } },
      }
    : raw;
  const scenario = resolveScenario(sized);
  const started = performance.now();
  const edf = await simulateBatchWindows(scenario, { order: "deadline", label: "earliest deadline first" });
  log(`EDF: ${pct(edf.withinWindow)} within their window`);
  const fifo = await simulateBatchWindows(scenario, {
    order: "created",
    orderTieMs: 0,
    label: "FIFO across batches",
  });
  log(`FIFO: ${pct(fifo.withinWindow)} within their window`);
  const seconds = (performance.now() - started) / 1000;
  const items = edf.batches.reduce((n, b) => n + b.items, 0);
  const goals: Goal[] = [
    {
      name: "batches that end within their completion window, earliest deadline first (work that fits the windows)",
      target: ">= 99%",
      measured: `${pct(edf.withinWindow)} (FIFO across batches in the same run: ${pct(fifo.withinWindow)}, ${ratio(edf.withinWindow / Math.max(fifo.withinWindow, 1e-9))})`,
      holds: edf.withinWindow >= 0.99,
    },
    {
      name: "completion estimate at a quarter of the items, |estimate - end| / duration, p95 (earliest deadline first)",
      target: "<= 20%",
      measured: `p50 ${pct(edf.estimateError.p50)}, p95 ${pct(edf.estimateError.p95)}, ${pct(shareWithin20(edf.batches.filter(estimated)))} within 20%, ${pct(shareWithin20(notPassedLater(edf.batches)))} of those no later batch passed (FIFO: p50 ${pct(fifo.estimateError.p50)}, p95 ${pct(fifo.estimateError.p95)}, ${pct(shareWithin20(fifo.batches.filter(estimated)))} within 20%)`,
      holds: edf.estimateError.p95 <= 0.2,
    },
  ];
  return {
    part: "batch-deadlines",
    title: "Batches that meet their window: earliest deadline first against FIFO across batches",
    method: [
      `The real batch layer (createBatches, memory store, maxInFlight ${scenario.maxConcurrency}) on the real scheduler, in virtual time in front of the simulator's upstream model: examples/scenarios/batch-windows.json${quick ? ", an eighth of it" : ""}: ${edf.batches.length} batches (${num(items)} items, ${JSON.stringify(jobs.items)} each) from ${jobs.tenants?.length ?? 1} tenants arriving as a Poisson process, windows drawn from ${JSON.stringify(jobs.completionWindowMs)} ms, beside chat at ${scenario.chat.ratePerSec}/s; ${scenario.maxConcurrency} slots, one reserved for chat.`,
      'Both runs take the same seeded workload; only `batchOrder` differs: "deadline" (orderTieMs 60 s) against "created" with orderTieMs 0 (strict FIFO across batches).',
      'Within window: the batch completed by its expiresAt (an unfinished batch expires there). Estimate error: get(id).estimatedCompletionAt read when a quarter of the batch\'s items had ended, against its real end, relative to its real duration from creation; over the batches that completed. "Not passed by a later batch": no batch created after the reading ended before it (what the estimate could know of when it was read).',
      `Simulated both runs in ${num(seconds, 1)} s of real time.`,
    ],
    tables: [
      {
        title: "Batches within their window and the completion estimate",
        columns: [
          "order",
          "batches",
          "within window",
          "expired",
          "estimate error p50",
          "p95",
          "estimates within 20%",
          "within 20%, not passed by a later batch",
        ],
        rows: [row(edf), row(fifo)],
      },
    ],
    goals,
    notes: [],
    raw: {
      edf: { withinWindow: edf.withinWindow, estimateError: edf.estimateError },
      fifo: { withinWindow: fifo.withinWindow, estimateError: fifo.estimateError },
    },
  };
};

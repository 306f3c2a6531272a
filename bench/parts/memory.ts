// Part 2: bytes per queued task, each reading in a fresh process (see probes/memory.ts).
import { num, ratio, spread } from "../lib/format.js";
import type { CensusRow } from "../lib/heap-census.js";
import { runProbe } from "../lib/node-child.js";
import type { Part } from "../lib/part.js";
import type { Table } from "../lib/report.js";
import { median, summarize } from "../lib/stats.js";

/**
 * Issue 28: at most 0.45x p-queue's bytes per queued task measured in the same run, promise included;
 * the `floor` subject measures the least possible.
 */
const GOAL_RATIO = 0.45;

interface ProbeResult {
  readonly bytesPerTask: number;
  readonly heapBefore: number;
  readonly heapAfter: number;
  readonly census: CensusRow[] | null;
}

const SUBJECTS = [
  ["core", "llm-scheduler, one priority and tenant"],
  ["core-mixed", "llm-scheduler, 2 priorities x 16 tenants"],
  ["p-queue", "p-queue"],
  ["p-queue-priorities", "p-queue, priorities"],
  ["floor", "floor: two plain FIFOs of { fn, resolve, enqueuedAt } and the promise"],
] as const;

export const run: Part = async ({ quick, runs: asked, log }) => {
  const size = quick ? 1_000 : 100_000;
  const runs = quick ? 1 : (asked ?? 3);
  const censusSize = 10_000;
  const readings = new Map<string, number[]>(SUBJECTS.map(([subject]) => [subject, []]));
  const censuses = new Map<string, CensusRow[]>();
  const read = async (subject: string): Promise<void> => {
    const result = await runProbe<ProbeResult>("memory", [subject, String(size)], { inProcess: quick });
    readings.get(subject)!.push(result.bytesPerTask);
  };
  const census = async (subject: string): Promise<void> => {
    const result = await runProbe<ProbeResult>("memory", [subject, String(censusSize), "--census"]);
    censuses.set(subject, result.census ?? []);
  };
  for (let round = 0; round < runs; round++) {
    for (const [subject] of SUBJECTS) await read(subject);
    log(`round ${round + 1}/${runs} done`);
  }
  // A heap census takes seconds: left out of smoke runs, whose readings run in this process.
  if (!quick) {
    for (const subject of ["core", "p-queue"]) await census(subject);
    log("heap censuses done");
  }

  const pQueue = median(readings.get("p-queue")!);
  const floorBytes = median(readings.get("floor")!);
  const ours = median(readings.get("core")!);
  const worst = Math.max(ours, median(readings.get("core-mixed")!));
  const censusTable = (subject: string, title: string): Table => ({
    title,
    columns: ["object (V8 type:name)", "per task", "bytes per task"],
    rows: censuses.get(subject)!.map((row) => [row.kind, row.perTask.toFixed(2), num(row.bytesPerTask, 1)]),
  });
  return {
    part: "memory",
    title: "Memory: bytes per queued task",
    method: [
      `Each reading runs in a fresh Node process with --expose-gc: one slot (concurrency 1) is taken by a task that never settles, 1,000 tasks are queued to warm up, then the heap in use is read after a full gc, ${num(size)} no-op tasks are queued with the caller keeping every returned promise, and the heap is read again after a full gc.`,
      "Bytes per task = heap growth / tasks. The promise each caller holds is counted; the caller's array of promises was allocated before the first reading and is not. All tasks share one function, so no per-task closure of the caller is counted.",
      "llm-scheduler runs with queue timeouts on (600 s), so each waiting task also has a deadline.",
      "The floor is the least a queue with priorities, queue timeouts and a promise per task keeps: one record of the function, the resolving function and the enqueue time per task in one of two arrays, and the promise (no tenants, no removal, no limits).",
      `${runs} reading(s) per subject; the table shows the median (min–max).`,
      `The census tables compare V8 heap snapshots taken before and after queueing ${num(censusSize)} tasks (object kinds that grew by at least 0.1 per task); sizes are V8's self sizes.`,
    ],
    tables: [
      {
        title: `Heap growth per queued task, ${num(size)} tasks`,
        columns: ["subject", "bytes per task", "vs p-queue"],
        rows: SUBJECTS.map(([subject, label]) => {
          const values = readings.get(subject)!;
          return [label, spread(summarize(values)), ratio(median(values) / pQueue)];
        }),
      },
      ...(censuses.has("core")
        ? [censusTable("core", "What one queued task keeps alive: llm-scheduler")]
        : []),
      ...(censuses.has("p-queue")
        ? [censusTable("p-queue", "What one queued task keeps alive: p-queue")]
        : []),
    ],
    goals: [
      {
        name: "bytes per queued task vs p-queue, same run (worst llm-scheduler setup)",
        target: `<= ${GOAL_RATIO}x`,
        measured: `${ratio(worst / pQueue)}: ${num(worst)} B (floor ${num(floorBytes)} B, p-queue ${num(pQueue)} B)`,
        holds: worst <= GOAL_RATIO * pQueue,
      },
    ],
    notes: quick ? ["Quick run: no heap census."] : [],
    raw: { size, bytesPerTask: Object.fromEntries(readings), census: Object.fromEntries(censuses), ours },
  };
};

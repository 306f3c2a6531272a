// Part 3: how the cost grows from 10^3 to 10^6 tasks, and the cost of mass cancellation and timeouts.
import { num, ratio } from "../lib/format.js";
import { type ProbeOptions, runProbe } from "../lib/node-child.js";
import type { Part } from "../lib/part.js";
import type { Goal, Table } from "../lib/report.js";
import { logSlope, median } from "../lib/stats.js";

const GOAL_SLOPE = 1.1;
/** Longest p-queue-with-priorities run we wait for at the largest size; it is stopped after that. */
const PATIENCE_MS = 60_000;

type Times = Record<number, number[]>;
interface Cancel {
  readonly queueMs: number;
  readonly cancelMs: number;
  readonly baselineMs?: number;
}

const SUBJECTS = [
  ["core", "llm-scheduler"],
  ["p-queue", "p-queue"],
  ["p-queue-priorities", "p-queue, priorities"],
] as const;

export const run: Part = async ({ quick, runs: asked, log }) => {
  const sizes = quick ? [100, 300, 1_000] : [1_000, 10_000, 100_000, 1_000_000];
  const runs = asked ?? (quick ? 1 : 3);
  const cancelSize = quick ? 500 : 100_000;
  const sharedSizes = quick ? [100, 200, 400] : [5_000, 10_000, 20_000];
  const largest = sizes.at(-1)!;
  const belowLargest = sizes.slice(0, -1);

  // A smoke run only checks that every probe works: in this process, where a fresh one would cost more.
  const probe = <T>(name: string, args: string[], options: ProbeOptions = {}): Promise<T> =>
    runProbe<T>(name, args, { ...options, inProcess: quick });
  const timeProbe = (subject: string, list: number[]) =>
    probe<Times>("scale", ["time", subject, String(runs), ...list.map(String)]);
  const jobs = {
    core: () => timeProbe("core", sizes),
    pQueue: () => timeProbe("p-queue", sizes),
    pQueuePriorities: () => timeProbe("p-queue-priorities", belowLargest),
    cancelCore: () => probe<Cancel>("scale", ["cancel", "core", String(cancelSize)]),
    cancelPQueue: () => probe<Cancel>("scale", ["cancel", "p-queue", String(cancelSize)]),
    sharedCore: () => probe<Record<number, Cancel>>("scale", ["shared", "core", ...sharedSizes.map(String)]),
    sharedPQueue: () =>
      probe<Record<number, Cancel>>("scale", ["shared", "p-queue", ...sharedSizes.map(String)]),
    timeouts: () => probe<{ fireMs: number }>("scale", ["timeouts", String(cancelSize)]),
  };
  type Results = { [K in keyof typeof jobs]: Awaited<ReturnType<(typeof jobs)[K]>> };
  const results = {} as Results;
  const keys = Object.keys(jobs) as Array<keyof typeof jobs>;
  for (const key of keys) {
    const started = performance.now();
    Object.assign(results, { [key]: await jobs[key]() });
    log(`${key} done in ${num((performance.now() - started) / 1000, 1)} s`);
  }

  // p-queue with priorities at the largest size: one run, stopped if it takes longer than PATIENCE_MS.
  const prioritized: Times = { ...results.pQueuePriorities };
  const [a, b] = belowLargest.slice(-2) as [number, number];
  const growth = logSlope(a, Math.min(...prioritized[a]!), b, Math.min(...prioritized[b]!));
  const notes: string[] = [];
  let stoppedAfterMs: number | undefined;
  const started = performance.now();
  try {
    const largestRun = probe<Times>("scale", ["time", "p-queue-priorities", "1", String(largest)], {
      // Its start-up and warm-up take a few seconds; the run itself gets PATIENCE_MS.
      timeoutMs: PATIENCE_MS + 10_000,
    });
    Object.assign(prioritized, await largestRun);
  } catch (error) {
    if (performance.now() - started < PATIENCE_MS) throw error;
    stoppedAfterMs = PATIENCE_MS;
    notes.push(
      `p-queue with priorities was stopped at ${num(largest)} tasks after about ${num(PATIENCE_MS / 1000)} s (its growth from ${num(a)} to ${num(b)} already has exponent ${growth.toFixed(2)}, rising with size). Each task of a higher priority is inserted with Array.prototype.splice into one sorted array, O(n) per insertion, so a flood of n tasks costs O(n²).`,
    );
  }
  log("p-queue with priorities at the largest size done");
  const times: Record<string, Times> = {
    core: results.core,
    "p-queue": results.pQueue,
    "p-queue-priorities": prioritized,
  };
  return build({ sizes, runs, times, results, notes, stoppedAfterMs, cancelSize, sharedSizes });
};

function build(input: {
  sizes: number[];
  runs: number;
  times: Record<string, Times>;
  results: {
    cancelCore: Cancel;
    cancelPQueue: Cancel;
    sharedCore: Record<number, Cancel>;
    sharedPQueue: Record<number, Cancel>;
    timeouts: { fireMs: number };
  };
  notes: string[];
  stoppedAfterMs: number | undefined;
  cancelSize: number;
  sharedSizes: number[];
}) {
  const { sizes, times, results, notes, cancelSize, sharedSizes, stoppedAfterMs } = input;
  const [from, to] = sizes.slice(-2) as [number, number];
  const best = (subject: string, size: number): number | undefined => {
    const values = times[subject]?.[size];
    return values === undefined ? undefined : Math.min(...values);
  };
  const cell = (subject: string, size: number): string[] => {
    const values = times[subject]?.[size];
    if (values === undefined && stoppedAfterMs !== undefined)
      return [`> ${num(stoppedAfterMs)} ms (stopped)`, ""];
    if (values === undefined) return ["not run", ""];
    const perTaskUs = (median(values) * 1000) / size;
    return [`${num(median(values))} ms (min ${num(Math.min(...values))})`, `${perTaskUs.toFixed(2)} µs`];
  };
  const growthRow = (subject: string, label: string): string[] => {
    const small = best(subject, from);
    const large = best(subject, to);
    if (small === undefined || large === undefined) return [label, "not run", ""];
    const perTask = large / to / (small / from);
    return [label, logSlope(from, small, to, large).toFixed(2), ratio(perTask)];
  };
  const slope = logSlope(from, best("core", from)!, to, best("core", to)!);
  const [sharedFrom, sharedTo] = sharedSizes.slice(-2) as [number, number];
  const sharedGrowth = (runs: Record<number, Cancel>): number =>
    logSlope(sharedFrom, runs[sharedFrom]!.queueMs, sharedTo, runs[sharedTo]!.queueMs);
  const sharedSlope = sharedGrowth(results.sharedCore);
  const sharedSlopePQueue = sharedGrowth(results.sharedPQueue);
  const tables: Table[] = [
    {
      title: "Submit N no-op tasks at once and await all: total time, median (min), and median per task",
      columns: ["N", ...SUBJECTS.flatMap(([, label]) => [label, "per task"])],
      rows: sizes.map((size) => [num(size), ...SUBJECTS.flatMap(([subject]) => cell(subject, size))]),
    },
    {
      title: `Growth from ${num(from)} to ${num(to)} tasks (from the fastest run of each size)`,
      columns: ["library", "exponent (1 = linear, 2 = quadratic)", "per-task cost ratio"],
      rows: SUBJECTS.map(([subject, label]) => growthRow(subject, label)),
    },
    {
      title: `Cancelling ${num(cancelSize)} queued tasks, each with its own AbortSignal, aborted one by one`,
      columns: ["library", "queue all", "abort all, until every promise settled", "per task", "Node alone"],
      rows: [
        ["llm-scheduler", results.cancelCore],
        ["p-queue", results.cancelPQueue],
      ].map(([label, value]) => {
        const cancel = value as Cancel;
        return [
          label as string,
          `${num(cancel.queueMs)} ms`,
          `${num(cancel.cancelMs)} ms`,
          `${((cancel.cancelMs * 1000) / cancelSize).toFixed(1)} µs`,
          `${num(cancel.baselineMs ?? 0)} ms`,
        ];
      }),
      note: "Node alone: adding one listener to each of as many fresh signals and aborting them all, with no queue; Node's AbortSignal is slow, and every library pays this part.",
    },
    {
      title: "Queued tasks that share one AbortSignal, aborted once",
      note: `Growth exponent of "queue all" from ${num(sharedFrom)} to ${num(sharedTo)}: llm-scheduler ${sharedSlope.toFixed(2)}, p-queue ${sharedSlopePQueue.toFixed(2)}.`,
      columns: ["library", "N", "queue all", "abort, until every promise settled"],
      rows: [
        ["llm-scheduler", results.sharedCore],
        ["p-queue", results.sharedPQueue],
      ].flatMap(([label, value]) =>
        sharedSizes.map((size) => {
          const cancel = (value as Record<number, Cancel>)[size]!;
          return [label as string, num(size), `${num(cancel.queueMs)} ms`, `${num(cancel.cancelMs)} ms`];
        }),
      ),
    },
    {
      title: "Queue timeouts firing",
      columns: ["N", "all fired and every promise settled", "per timeout"],
      rows: [
        [
          num(cancelSize),
          `${num(results.timeouts.fireMs)} ms`,
          `${((results.timeouts.fireMs * 1000) / cancelSize).toFixed(1)} µs`,
        ],
      ],
      note: "llm-scheduler with a VirtualClock: N tasks wait behind a blocked slot with a 1 s queue timeout, then the clock moves 1 s on; the time is the CPU cost of firing them.",
    },
  ];
  const goals: Goal[] = [
    {
      name: `growth of llm-scheduler's total time from ${num(from)} to ${num(to)} tasks`,
      target: `exponent <= ${GOAL_SLOPE}`,
      measured: slope.toFixed(2),
      holds: slope <= GOAL_SLOPE,
    },
    {
      name: `growth of llm-scheduler's time to queue tasks that share one AbortSignal, ${num(sharedFrom)} to ${num(sharedTo)}`,
      target: `exponent <= ${GOAL_SLOPE}`,
      measured: sharedSlope.toFixed(2),
      holds: sharedSlope <= GOAL_SLOPE,
    },
  ];
  return {
    part: "scale",
    title: "Scale: from a thousand to a million tasks",
    method: [
      "Each library runs in its own fresh Node process with --expose-gc; within it, the sizes are interleaved round by round (small sizes more often) after a warm-up, with a full gc before each run.",
      "Each run creates a fresh queue, submits N no-op tasks at once and awaits them all; llm-scheduler with two priorities, 16 tenants and queue timeouts on, concurrency 8 (as in the throughput part).",
      "The growth exponent is log(T(N2)/T(N1)) / log(N2/N1) from the fastest run of each size (the least disturbed by other load on a shared machine): 1.0 means a flat cost per task.",
      "Cancellation and timeouts: tasks wait behind one blocked slot; the time runs from the first abort (or the clock step) until every caller's promise has settled.",
    ],
    tables,
    goals,
    notes,
    raw: { ...input, notes: undefined },
  };
}

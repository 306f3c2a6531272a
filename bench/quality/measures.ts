import { quantile } from "../lib/stats.js";
import type { Job, Kind } from "./trace.js";

/** The figures compared between schedules. */
export interface Measures {
  readonly interactive: {
    readonly p50: number;
    readonly p95: number;
    readonly p99: number;
    readonly max: number;
  };
  /** Interactive requests refused (queue timeout, queue full); their wait counts as their time in queue. */
  readonly interactiveRefused: number;
  readonly batchRefused: number;
  /** When the last batch item finished. */
  readonly batchMakespan: number;
  readonly longestBatchWait: number;
}

/**
 * `starts[i]` is when job i started (NaN if refused); `refusedAt[i]` when it was refused. A refused
 * request's wait is counted up to its refusal, so refusing requests never improves a percentile.
 */
export function measure(
  trace: readonly Job[],
  starts: readonly number[],
  refusedAt: ReadonlyArray<number | undefined> = [],
): Measures {
  const waits: Record<Kind, number[]> = { interactive: [], batch: [] };
  const refused: Record<Kind, number> = { interactive: 0, batch: 0 };
  let makespan = 0;
  for (const job of trace) {
    const start = starts[job.index]!;
    const end = refusedAt[job.index];
    if (Number.isNaN(start)) {
      refused[job.kind]++;
      waits[job.kind].push((end ?? Number.POSITIVE_INFINITY) - job.arrival);
    } else {
      waits[job.kind].push(start - job.arrival);
      if (job.kind === "batch") makespan = Math.max(makespan, start + job.service);
    }
  }
  const interactive = waits.interactive;
  return {
    interactive: {
      p50: quantile(interactive, 0.5),
      p95: quantile(interactive, 0.95),
      p99: quantile(interactive, 0.99),
      max: Math.max(...interactive),
    },
    interactiveRefused: refused.interactive,
    batchRefused: refused.batch,
    batchMakespan: makespan,
    longestBatchWait: Math.max(...waits.batch),
  };
}

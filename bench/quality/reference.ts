// Reference schedules computed from the trace alone: FIFO (one queue in arrival order, what a plain
// concurrency limit does) and the ideal for a non-preemptive scheduler (whenever a slot frees, the
// longest-waiting interactive request goes first; batch only when no interactive request waits).
import type { Job } from "./trace.js";

export type Policy = "fifo" | "interactive-first";

/** When each job of the trace starts (by index), with `slots` slots and no preemption. */
export function referenceStarts(trace: readonly Job[], slots: number, policy: Policy): number[] {
  const starts = new Array<number>(trace.length).fill(Number.NaN);
  const busyUntil: number[] = [];
  const waiting: Record<"interactive" | "batch", Job[]> = { interactive: [], batch: [] };
  const heads = { interactive: 0, batch: 0 };
  let next = 0;
  let now = 0;
  const take = (): Job | undefined => {
    const interactive = waiting.interactive[heads.interactive];
    const batch = waiting.batch[heads.batch];
    const first =
      policy === "interactive-first"
        ? (interactive ?? batch)
        : interactive === undefined || (batch !== undefined && batch.index < interactive.index)
          ? batch
          : interactive;
    if (first !== undefined) heads[first.kind]++;
    return first;
  };
  while (
    next < trace.length ||
    heads.interactive < waiting.interactive.length ||
    heads.batch < waiting.batch.length
  ) {
    // Completions free slots, arrivals join the queue, then free slots start waiting jobs.
    for (let i = busyUntil.length - 1; i >= 0; i--) if (busyUntil[i]! <= now) busyUntil.splice(i, 1);
    while (next < trace.length && trace[next]!.arrival <= now) {
      const job = trace[next++]!;
      waiting[job.kind].push(job);
    }
    while (busyUntil.length < slots) {
      const job = take();
      if (job === undefined) break;
      starts[job.index] = now;
      busyUntil.push(now + job.service);
    }
    const nextArrival = trace[next]?.arrival ?? Number.POSITIVE_INFINITY;
    const nextFree = busyUntil.length < slots ? Number.POSITIVE_INFINITY : Math.min(...busyUntil);
    now = Math.min(nextArrival, nextFree);
    if (!Number.isFinite(now)) break;
  }
  return starts;
}

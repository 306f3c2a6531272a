// Drives the real core scheduler through a trace in virtual time: arrivals and task completions are
// timers of a VirtualClock, and the loop lets every promise reaction run before time moves on.
import { createScheduler, isSchedulerError, type SchedulerOptions, VirtualClock } from "@llm-scheduler/core";
import type { Job } from "./trace.js";

/** What happened to one job: its start (NaN if it never started) and the error code if it was refused. */
export interface Outcome {
  start: number;
  end: number;
  code: string | undefined;
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export async function simulateCore(trace: readonly Job[], options: SchedulerOptions): Promise<Outcome[]> {
  const clock = new VirtualClock(0);
  const scheduler = createScheduler({ ...options, clock });
  const outcomes: Outcome[] = trace.map(() => ({ start: Number.NaN, end: Number.NaN, code: undefined }));
  const hold = (ms: number): Promise<void> => new Promise((resolve) => clock.setTimer(resolve, ms));
  let next = 0;
  let open = 0;
  const submit = (job: Job): void => {
    const outcome = outcomes[job.index]!;
    open++;
    scheduler
      .run(
        () => {
          outcome.start = clock.now();
          return hold(job.service);
        },
        { priority: job.kind, tenant: job.tenant },
      )
      .then(
        () => {
          outcome.end = clock.now();
        },
        (error: unknown) => {
          outcome.end = clock.now();
          outcome.code = isSchedulerError(error) ? error.code : String(error);
        },
      )
      .finally(() => open--);
  };
  for (;;) {
    const arrival = trace[next]?.arrival ?? Number.POSITIVE_INFINITY;
    const timer = clock.nextTimerAt() ?? Number.POSITIVE_INFINITY;
    if (!Number.isFinite(arrival) && !Number.isFinite(timer)) {
      if (open === 0) break;
      throw new Error(`${open} tasks neither ran nor were refused, and no timer is left`);
    }
    clock.advanceTo(Math.min(arrival, timer));
    while (next < trace.length && trace[next]!.arrival <= clock.now()) submit(trace[next++]!);
    await settle();
  }
  await scheduler.close();
  return outcomes;
}

import { ErrorCode, isSchedulerError, type SchedulerError } from "@llm-scheduler/core";

/**
 * The run-timeout error a permit's signal aborted with, or `undefined` for any other reason.
 *
 * @example
 * if (runTimeoutOf(slot.signal) !== undefined) console.log("the run took longer than timeoutMs");
 */
export function runTimeoutOf(signal: AbortSignal): SchedulerError | undefined {
  const { reason } = signal;
  return signal.aborted && isSchedulerError(reason) && reason.code === ErrorCode.RUN_TIMEOUT
    ? reason
    : undefined;
}

/**
 * The error a permit's signal aborted with when the scheduler stopped the request itself and the client
 * should hear it: `RUN_TIMEOUT` (504) or `PREEMPTED` (503, `Retry-After: 1`, `x-preempted: 1`).
 *
 * @example
 * const stop = stopOf(slot.signal); // undefined while running, or when the client left
 */
export function stopOf(signal: AbortSignal): SchedulerError | undefined {
  const { reason } = signal;
  return signal.aborted && isSchedulerError(reason) && STOPS.has(reason.code) ? reason : undefined;
}

const STOPS = new Set<string>([ErrorCode.RUN_TIMEOUT, ErrorCode.PREEMPTED]);

/**
 * Calls `answer` with the `RUN_TIMEOUT` or `PREEMPTED` error when `signal` (a permit's) aborts for that
 * reason before `work` settles; returns a function that stops listening. `answer` sends the 504 (503 for
 * a preemption) if nothing has been sent yet. Nothing is listened to when the adapter has no `timeoutMs`
 * and the request cannot be preempted (pass `enabled: false`).
 *
 * @example
 * const stop = onRunTimeout(slot.signal, config.timeoutMs !== undefined, (error) => send504(error));
 */
export function onRunTimeout(
  signal: AbortSignal,
  enabled: boolean,
  answer: (error: SchedulerError) => void,
): () => void {
  if (!enabled) return noop;
  const listener = (): void => {
    const error = stopOf(signal);
    if (error !== undefined) answer(error);
  };
  signal.addEventListener("abort", listener, { once: true });
  return () => signal.removeEventListener("abort", listener);
}

function noop(): void {}

/**
 * Settles like `work`, or earlier, with `undefined`, once a run timeout or a preemption has been
 * answered: `answer` returns true when it sent (or set) the 504 or 503, false when it was too late (the handler had already
 * started its response); the work then goes on to its own end.
 *
 * @example
 * return raceRunTimeout(next(), slot.signal, timeoutMs !== undefined, (error) => set504(ctx, error));
 */
export function raceRunTimeout<T>(
  work: Promise<T>,
  signal: AbortSignal,
  enabled: boolean,
  answer: (error: SchedulerError) => boolean,
): Promise<T | undefined> {
  if (!enabled) return work;
  return new Promise<T | undefined>((resolve, reject) => {
    const stop = onRunTimeout(signal, true, (error) => {
      if (answer(error)) resolve(undefined);
    });
    work.then(
      (value) => {
        stop();
        resolve(value);
      },
      (error: unknown) => {
        stop();
        reject(error);
      },
    );
  });
}

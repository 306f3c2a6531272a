import type { Clock } from "@llm-scheduler/core";

/**
 * Wall-clock time for the real-time runs: `performance.now()` and `setTimeout`. Unlike core's
 * `systemClock`, its timers keep the process alive, so a run waiting for its next arrival never exits
 * early.
 *
 * @example
 * const driver = new Driver({ scenario, workload, clock: realClock, transport, recorder });
 */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimer: (callback, ms) => setTimeout(callback, ms),
  clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

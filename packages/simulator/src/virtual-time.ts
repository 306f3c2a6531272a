import type { VirtualClock } from "@llm-scheduler/core";

/** Lets every pending promise callback run: a macrotask runs only once the microtask queue is empty. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Fires the clock's timers one at a time, letting promise callbacks run after each, until `done()`.
 * Time jumps straight to the next timer, so nothing really waits.
 *
 * @example
 * await runVirtualTime(clock, () => driver.finished, 50_000_000);
 */
export async function runVirtualTime(
  clock: VirtualClock,
  done: () => boolean,
  maxEvents: number,
): Promise<void> {
  await settle();
  for (let events = 0; !done(); events++) {
    if (clock.nextTimerAt() === undefined) {
      throw new Error("The simulation stalled: requests are still pending but nothing is scheduled");
    }
    if (events >= maxEvents) throw new Error(`The simulation did not finish within ${maxEvents} events`);
    clock.runUntilIdle(1);
    await settle();
  }
}

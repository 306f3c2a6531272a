import { type TimerHandle, VirtualClock } from "../src/index.js";

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A virtual clock whose timers behave like Node's `setTimeout`: a delay above 2^31-1 ms (or not a finite
 * number) is replaced by 1 ms, where Node prints a `TimeoutOverflowWarning`. Counts those overflows;
 * after 1,000 of them it stops arming such timers, so code that re-arms them in a loop fails the test
 * instead of spinning through days of virtual time one millisecond at a time.
 */
export class NodeLikeClock extends VirtualClock {
  overflows = 0;

  override setTimer(callback: () => void, ms: number): TimerHandle {
    if (ms >= 0 && ms <= MAX_TIMER_MS) return super.setTimer(callback, ms);
    this.overflows++;
    return this.overflows > 1_000 ? null : super.setTimer(callback, 1);
  }
}

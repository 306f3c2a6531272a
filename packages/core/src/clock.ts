import { type HeapItem, IndexedHeap } from "./heap.js";

/**
 * Time as the scheduler sees it. The default reads the runtime's monotonic clock; tests and simulations
 * pass a {@link VirtualClock} so that hours of traffic run in milliseconds, deterministically.
 */
export interface Clock {
  /** Milliseconds, monotonic; an epoch-like value (`performance.timeOrigin + performance.now()`). */
  now(): number;
  /** Calls `callback` once after `ms`. The scheduler keeps at most one such timer armed at a time. */
  setTimer(callback: () => void, ms: number): TimerHandle;
  /** Cancels a timer returned by {@link Clock.setTimer}; a no-op for one that already fired. */
  clearTimer(handle: TimerHandle): void;
}

/** Opaque handle of a timer; whatever the clock returns. */
export type TimerHandle = unknown;

/**
 * The real clock: `performance.now()` for time, `setTimeout` for timers, which are `unref()`ed where the
 * runtime supports it so that an idle scheduler never keeps a process alive.
 */
const timeOrigin = performance.timeOrigin; // a slow getter on some runtimes: read it once

export const systemClock: Clock = {
  now: () => timeOrigin + performance.now(),
  setTimer(callback, ms) {
    const handle: unknown = setTimeout(callback, ms);
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clearTimer(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/** The longest delay every runtime's `setTimeout` honours (2^31-1 ms); longer ones fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `callback` once after `ms` (any length, `Infinity` for never) on `clock`: a delay above
 * {@link MAX_TIMER_MS} is waited out in steps, so nothing fires early and no runtime warns. Returns the
 * function that cancels it.
 *
 * @example
 * const cancel = setLongTimer(systemClock, () => console.log("a month later"), 30 * 86_400_000);
 */
export function setLongTimer(clock: Clock, callback: () => void, ms: number): () => void {
  if (ms === Number.POSITIVE_INFINITY) return () => {};
  const at = clock.now() + ms;
  let handle: TimerHandle;
  const arm = (): void => {
    const wait = at - clock.now();
    handle =
      wait > MAX_TIMER_MS ? clock.setTimer(arm, MAX_TIMER_MS) : clock.setTimer(callback, Math.max(0, wait));
  };
  arm();
  return () => clock.clearTimer(handle);
}

interface VirtualTimer extends HeapItem {
  readonly at: number;
  readonly seq: number;
  readonly callback: () => void;
}

const earlier = (a: VirtualTimer, b: VirtualTimer): boolean =>
  a.at < b.at || (a.at === b.at && a.seq < b.seq);

/**
 * A clock that only moves when told to. Timers fire in time order (ties in the order they were set)
 * while {@link VirtualClock.advance} or {@link VirtualClock.runUntilIdle} moves time forward.
 *
 * @example
 * const clock = new VirtualClock();
 * const scheduler = createScheduler({ clock });
 * clock.advance(5_000); // queue timeouts that were due fire now
 */
export class VirtualClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #timers = new IndexedHeap<VirtualTimer>(earlier);

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(callback: () => void, ms: number): TimerHandle {
    const timer: VirtualTimer = {
      at: this.#now + Math.max(0, ms),
      seq: this.#seq++,
      callback,
      heapIndex: -1,
    };
    this.#timers.push(timer);
    return timer;
  }

  clearTimer(handle: TimerHandle): void {
    if (handle !== null && typeof handle === "object" && "heapIndex" in handle) {
      this.#timers.remove(handle as VirtualTimer);
    }
  }

  /** Timers set and not yet fired or cleared. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** The time of the next pending timer, or `undefined` when none is set. */
  nextTimerAt(): number | undefined {
    return this.#timers.peek()?.at;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way, in order. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`VirtualClock.advance: expected ms >= 0, got ${ms}`);
    this.advanceTo(this.#now + ms);
  }

  /** Moves time to `time` (never backwards), firing due timers in order. */
  advanceTo(time: number): void {
    if (Number.isNaN(time)) throw new RangeError("VirtualClock.advanceTo: expected a time, got NaN");
    for (
      let timer = this.#timers.peek();
      timer !== undefined && timer.at <= time;
      timer = this.#timers.peek()
    ) {
      this.#fire(timer);
    }
    this.#now = Math.max(this.#now, time);
  }

  /** Fires timers one after another, jumping time to each, until none is left (or `limit` have fired). */
  runUntilIdle(limit = 1_000_000): void {
    for (let fired = 0, timer = this.#timers.peek(); timer !== undefined && fired < limit; fired++) {
      this.#fire(timer);
      timer = this.#timers.peek();
    }
  }

  #fire(timer: VirtualTimer): void {
    this.#timers.remove(timer);
    this.#now = Math.max(this.#now, timer.at);
    timer.callback();
  }
}

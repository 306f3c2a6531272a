import type { Clock } from "@llm-scheduler/core";
import type { SchedulerLike } from "./options.js";
import type { WaitWindow } from "./wait-window.js";

/**
 * Listens to the scheduler's `started` events only while someone watches: from the first request to the
 * dashboard until no stream is open and no request came for `idleMs`. An unwatched dashboard costs the
 * scheduler nothing (the core builds no event object when nothing listens).
 *
 * @example
 * const feed = new WaitFeed(scheduler, window, clock, 20_000, () => streams.size);
 * feed.touch(); // on each request
 */
export class WaitFeed {
  readonly #scheduler: SchedulerLike;
  readonly #window: WaitWindow;
  readonly #clock: Clock;
  readonly #idleMs: number;
  readonly #watchers: () => number;
  #stop: (() => void) | undefined;
  #lastUsed = 0;

  constructor(
    scheduler: SchedulerLike,
    window: WaitWindow,
    clock: Clock,
    idleMs: number,
    watchers: () => number,
  ) {
    this.#scheduler = scheduler;
    this.#window = window;
    this.#clock = clock;
    this.#idleMs = idleMs;
    this.#watchers = watchers;
  }

  /** Whether the listener is attached now. */
  get listening(): boolean {
    return this.#stop !== undefined;
  }

  /** Someone is watching: attach the listener if it is not. */
  touch(): void {
    this.#lastUsed = this.#clock.now();
    this.#stop ??= this.#scheduler.on("started", (event) => {
      const now = this.#clock.now();
      this.#window.record(event.priority, now, event.waitMs);
      if (now - this.#lastUsed > this.#idleMs && this.#watchers() === 0) this.close();
    });
  }

  /** Detaches the listener. */
  close(): void {
    this.#stop?.();
    this.#stop = undefined;
  }
}

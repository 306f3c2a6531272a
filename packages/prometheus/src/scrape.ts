import type { MetricsSnapshot, Scheduler } from "@llm-scheduler/core";

/**
 * One `scheduler.metrics()` per scrape, shared by every series collected in it: the first metric that
 * asks takes the snapshot (and calls `onSnapshot`), the others, called in the same synchronous loop, reuse it.
 */
export class ScrapeSnapshot {
  readonly #scheduler: Scheduler;
  readonly #onSnapshot: (snapshot: MetricsSnapshot) => void;
  #current: MetricsSnapshot | null = null;

  constructor(scheduler: Scheduler, onSnapshot: (snapshot: MetricsSnapshot) => void) {
    this.#scheduler = scheduler;
    this.#onSnapshot = onSnapshot;
  }

  current(): MetricsSnapshot {
    if (this.#current !== null) return this.#current;
    const snapshot = this.#scheduler.metrics();
    this.#current = snapshot;
    // prom-client calls every metric's get() in one synchronous loop: a microtask later, the scrape
    // has read what it needs and the next one takes a fresh snapshot.
    queueMicrotask(() => {
      this.#current = null;
    });
    this.#onSnapshot(snapshot);
    return snapshot;
  }
}

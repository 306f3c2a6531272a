import type { Clock } from "@llm-scheduler/core";
import { type BatchesLike, type BatchView, listBatches } from "./batches.js";

/**
 * The batches list shared by every stream and snapshot: `list()` is called at most once per `maxAgeMs`
 * however many pages are open, and again as soon as `batches` reports progress or a batch done (when it
 * offers `on("progress" | "done")`), so a store such as Redis sees a bounded number of reads.
 *
 * @example
 * const cache = new BatchCache(batches, clock, 1_000);
 * const views = await cache.list();
 */
export class BatchCache {
  readonly #batches: BatchesLike;
  readonly #clock: Clock;
  readonly #maxAgeMs: number;
  readonly #unsubscribe: Array<() => void> = [];
  #pending: Promise<BatchView[]> | undefined;
  #readAt = Number.NEGATIVE_INFINITY;

  constructor(batches: BatchesLike, clock: Clock, maxAgeMs: number) {
    this.#batches = batches;
    this.#clock = clock;
    this.#maxAgeMs = maxAgeMs;
    for (const name of ["progress", "done"] as const) this.#subscribe(name);
  }

  list(): Promise<BatchView[]> {
    const now = this.#clock.now();
    if (this.#pending === undefined || now - this.#readAt >= this.#maxAgeMs) {
      this.#readAt = now;
      this.#pending = listBatches(this.#batches);
    }
    return this.#pending;
  }

  /** The next read calls `list()` again (after a control changed a batch). */
  invalidate(): void {
    this.#readAt = Number.NEGATIVE_INFINITY;
  }

  /** Stops listening to the batches. */
  close(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  #subscribe(name: "progress" | "done"): void {
    if (typeof this.#batches.on !== "function") return;
    try {
      const stop = this.#batches.on(name, () => this.invalidate());
      if (typeof stop === "function") this.#unsubscribe.push(stop as () => void);
    } catch {
      // batches whose on() throws are read on the clock alone
    }
  }
}

import type { BatchEmitter } from "./events.js";
import type { BatchStore, BatchSummary } from "./store.js";
import { FINAL_STATUSES } from "./types.js";

/** Batches followed at most; beyond, the oldest finished ones are forgotten first. */
const MAX_FOLLOWED = 10_000;

interface Seen {
  key: string;
  final: boolean;
}

const keyOf = ({ status, requestCounts: c }: BatchSummary): string =>
  `${status}:${c.total}:${c.completed}:${c.failed}`;

/**
 * Emits `progress` and `done` once per change of a batch, whichever instance made it: the batches this
 * instance created or touched are read from the store at every heartbeat until they end, so that with a
 * shared store (Redis) the instance that created a batch hears its progress and its end although other
 * instances run its items. A change this instance made itself is announced at once and not again.
 *
 * @example
 * const watch = new BatchWatch(store, events);
 * watch.announce(batch); // after a create, a settle, a cancel
 * await watch.poll();    // at every heartbeat
 */
export class BatchWatch {
  readonly #store: BatchStore;
  readonly #events: BatchEmitter;
  readonly #seen = new Map<string, Seen>();

  constructor(store: BatchStore, events: BatchEmitter) {
    this.#store = store;
    this.#events = events;
  }

  /** Emits `progress` (and `done` at a final status) unless this state of the batch was announced. */
  announce(batch: BatchSummary): void {
    const key = keyOf(batch);
    const seen = this.#seen.get(batch.id);
    if (seen?.key === key) return;
    const final = FINAL_STATUSES.includes(batch.status);
    this.#seen.delete(batch.id); // re-inserted last: the map stays in order of the latest change
    this.#seen.set(batch.id, { key, final });
    this.#forget();
    const event = { id: batch.id, status: batch.status, requestCounts: batch.requestCounts };
    this.#events.emit("progress", event);
    if (final) this.#events.emit("done", event);
  }

  /** Reads the followed batches that have not ended and announces what changed. */
  async poll(): Promise<void> {
    const open = [...this.#seen].filter(([, seen]) => !seen.final).map(([id]) => id);
    for (const id of open) {
      const batch = await this.#store.getBatch(id);
      if (batch === undefined) this.#seen.delete(id);
      else this.announce(batch);
    }
  }

  #forget(): void {
    for (const [id, seen] of this.#seen) {
      if (this.#seen.size <= MAX_FOLLOWED) return;
      if (seen.final) this.#seen.delete(id);
    }
  }
}

import type { Attempt, BatchStatus, RequestCounts } from "./types.js";

/**
 * The events of a `Batches` instance and their payloads. `item` fires on the instance that ran the
 * attempt; `progress` and `done` fire there at once, and also on the instance that created (or
 * cancelled, or retried) the batch, at its next heartbeat, when another instance made the change.
 */
export interface BatchEvents {
  /** A batch's counts or status changed. */
  readonly progress: {
    readonly id: string;
    readonly status: BatchStatus;
    readonly requestCounts: RequestCounts;
  };
  /** One attempt of an item ended: `completed`, `failed` (for good) or `retrying`. */
  readonly item: {
    readonly batchId: string;
    readonly customId: string;
    readonly outcome: "completed" | "failed" | "retrying";
    readonly attempts: number;
    readonly last: Attempt | undefined;
  };
  /** A batch reached a final status (`completed`, `expired`, `cancelled`, `failed`). */
  readonly done: { readonly id: string; readonly status: BatchStatus; readonly requestCounts: RequestCounts };
}

type Listener<K extends keyof BatchEvents> = (event: BatchEvents[K]) => void;

/**
 * A typed emitter whose listeners can never break the batch layer: one that throws is reported to
 * `onError` and the others still run.
 *
 * @example
 * const events = new BatchEmitter(console.error);
 * events.on("done", ({ id, status }) => console.log(id, status));
 */
export class BatchEmitter {
  readonly #listeners = new Map<keyof BatchEvents, Array<Listener<keyof BatchEvents>>>();
  readonly #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  on<K extends keyof BatchEvents>(name: K, listener: Listener<K>): () => void {
    const list = this.#listeners.get(name) ?? [];
    list.push(listener as Listener<keyof BatchEvents>);
    this.#listeners.set(name, list);
    return () => {
      const at = list.indexOf(listener as Listener<keyof BatchEvents>);
      if (at >= 0) list.splice(at, 1);
    };
  }

  emit<K extends keyof BatchEvents>(name: K, event: BatchEvents[K]): void {
    for (const listener of [...(this.#listeners.get(name) ?? [])]) {
      try {
        (listener as Listener<K>)(event);
      } catch (error) {
        this.#onError(error);
      }
    }
  }
}

import { createScheduler, type Scheduler, VirtualClock } from "@llm-scheduler/core";
import type { NodeResponseLike } from "./response-watch.js";

type Listener = () => void;

/**
 * A stand-in for Node's `http.ServerResponse` in unit tests of the Node adapters: it finishes or drops
 * its connection when the test says so, emitting `finish` and `close` in Node's order. No Node imports.
 *
 * @example
 * const res = new FakeNodeResponse();
 * const watch = new ResponseWatch(res);
 * res.drop(); // watch.signal is aborted now
 */
export class FakeNodeResponse implements NodeResponseLike {
  statusCode = 200;
  writableFinished = false;
  writableEnded = false;
  destroyed = false;
  errored: Error | null = null;
  /** Detached (`null`) once the response has finished, as Node does before it emits `close`. */
  socket: object | null = {};
  readonly #listeners = new Map<string, Listener[]>();

  on(event: "finish" | "close", listener: Listener): this {
    this.#listeners.set(event, [...(this.#listeners.get(event) ?? []), listener]);
    return this;
  }

  /** The whole response was handed to the operating system (`finish`), then the stream closed. */
  finish(status = this.statusCode): void {
    this.statusCode = status;
    this.writableEnded = true;
    this.writableFinished = true;
    this.#emit("finish");
    this.socket = null;
    this.destroyed = true;
    this.#emit("close");
  }

  /** The client went away before the response was complete. */
  drop(): void {
    this.destroyed = true;
    this.#emit("close");
  }

  #emit(event: string): void {
    const listeners = this.#listeners.get(event) ?? [];
    this.#listeners.delete(event);
    for (const listener of listeners) listener();
  }
}

/**
 * A scheduler for adapter unit tests: one slot, room for one waiting interactive request, and a
 * `VirtualClock`, so waits read as 0 and nothing depends on the wall clock.
 */
export function oneSlotScheduler(): Scheduler {
  return createScheduler({
    clock: new VirtualClock(),
    maxConcurrency: 1,
    priorities: { interactive: { maxQueue: 1 }, batch: {} },
  });
}

/** Lets pending promise callbacks run (a few microtask turns), without timers. */
export async function settle(turns = 5): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await Promise.resolve();
}

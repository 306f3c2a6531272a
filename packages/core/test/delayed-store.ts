import type { ResolvedOptions } from "../src/index.js";
import {
  type EnqueueResult,
  MemoryStore,
  type Store,
  type StoreHost,
  type StoreSnapshot,
  type Ticket,
} from "../src/kit.js";

const later = <T>(value: () => T): Promise<T> =>
  Promise.resolve()
    .then(() => undefined)
    .then(value);

/**
 * A store that answers like a remote one: every call returns a promise that settles a few microtasks
 * later, and grants reach the scheduler a microtask after the decision. The decisions themselves are
 * the in-memory store's, so tests can compare outcomes while exercising every asynchronous path.
 */
export class DelayedStore implements Store {
  readonly #inner = new MemoryStore();

  attach(host: StoreHost, options: ResolvedOptions): Promise<void> {
    const deferred: StoreHost = {
      ...host,
      grant: (ticket) => queueMicrotask(() => host.grant(ticket)),
    };
    return later(() => this.#inner.attach(deferred, options));
  }

  configure(options: ResolvedOptions): Promise<void> {
    return later(() => this.#inner.configure(options));
  }

  enqueue(ticket: Ticket): Promise<EnqueueResult> {
    return later(() => this.#inner.enqueue(ticket));
  }

  remove(ticket: Ticket): Promise<boolean> {
    return later(() => this.#inner.remove(ticket));
  }

  release(ticket: Ticket): Promise<void> {
    return later(() => this.#inner.release(ticket));
  }

  removeAll(): Promise<Ticket[]> {
    return later(() => this.#inner.removeAll());
  }

  depth(priority: string): number {
    return this.#inner.depth(priority);
  }

  snapshot(tenantLimit: number): StoreSnapshot {
    return this.#inner.snapshot(tenantLimit);
  }

  detach(): Promise<void> {
    return later(() => this.#inner.detach());
  }
}

import type { LoadSnapshot } from "./transport.js";

/** Gives a slot back; later calls do nothing. */
export type Release = () => void;

interface Entry {
  readonly label: string;
  readonly onAbort: () => void;
  readonly grant: (release: Release) => void;
  readonly cancel: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  waiting: boolean;
}

function bump(counts: Record<string, number>, label: string, by: number): void {
  counts[label] = (counts[label] ?? 0) + by;
}

/**
 * The baseline most gateways ship: a concurrency limit and one first-in, first-out queue. Every request
 * waits its turn whatever it is; a waiting request whose client goes away leaves the queue at once (so
 * the baseline is a fair one, not a strawman). Labels only count requests by priority for the charts;
 * they never change the order.
 *
 * @example
 * const fifo = new FifoLimiter(8);
 * const release = await fifo.acquire("interactive", signal);
 * try { await callUpstream(); } finally { release(); }
 */
export class FifoLimiter {
  readonly limit: number;
  readonly #queue: Entry[] = [];
  #head = 0;
  #running = 0;
  readonly #queuedBy: Record<string, number> = {};
  readonly #runningBy: Record<string, number> = {};

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new TypeError(`Expected \`limit\` to be a positive integer, got \`${limit}\` (${typeof limit})`);
    }
    this.limit = limit;
  }

  /**
   * Calls `grant(release)` when the request's turn comes (synchronously when a slot is free now), or
   * `cancel(reason)` if `signal` aborts while it waits.
   */
  enter(
    label: string,
    grant: (release: Release) => void,
    cancel: (reason: unknown) => void,
    signal?: AbortSignal,
  ): void {
    if (signal?.aborted) {
      cancel(signal.reason);
      return;
    }
    const entry: Entry = { label, grant, cancel, signal, waiting: true, onAbort: () => this.#leave(entry) };
    this.#queue.push(entry);
    bump(this.#queuedBy, label, 1);
    signal?.addEventListener("abort", entry.onAbort, { once: true });
    this.#pump();
  }

  /** Promise form of {@link FifoLimiter.enter}: resolves with the release function. */
  acquire(label: string, signal?: AbortSignal): Promise<Release> {
    return new Promise((resolve, reject) => this.enter(label, resolve, reject, signal));
  }

  /** Requests queued and running, by label. */
  snapshot(): LoadSnapshot {
    return { queued: { ...this.#queuedBy }, running: { ...this.#runningBy } };
  }

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    return Object.values(this.#queuedBy).reduce((sum, n) => sum + n, 0);
  }

  #leave(entry: Entry): void {
    if (!entry.waiting) return;
    entry.waiting = false;
    bump(this.#queuedBy, entry.label, -1);
    entry.cancel(entry.signal?.reason);
  }

  #pump(): void {
    while (this.#running < this.limit && this.#head < this.#queue.length) {
      const entry = this.#queue[this.#head++]!;
      if (!entry.waiting) continue;
      entry.waiting = false;
      entry.signal?.removeEventListener("abort", entry.onAbort);
      bump(this.#queuedBy, entry.label, -1);
      bump(this.#runningBy, entry.label, 1);
      this.#running++;
      entry.grant(this.#releaser(entry.label));
    }
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
  }

  #releaser(label: string): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      bump(this.#runningBy, label, -1);
      this.#pump();
    };
  }
}

/**
 * When the finished batches of the in-memory store are dropped: each is noted with the time it
 * finished, in that order, and {@link Retention.due} hands back those finished `ttlMs` ago or more.
 * A batch reopened (`retryFailed`) and finished again is noted again; its older note no longer counts.
 *
 * @example
 * const retention = new Retention<BatchState>(604_800_000);
 * retention.finished(state, now);
 * for (const state of retention.due(now)) drop(state);
 */
export class Retention<T extends object> {
  readonly #ttlMs: number;
  readonly #queue: { readonly value: T; readonly at: number }[] = [];
  #head = 0;
  /** The latest note of each value: an older note of a value noted again is stale. */
  readonly #latest = new WeakMap<T, number>();

  constructor(ttlMs: number) {
    this.#ttlMs = ttlMs;
  }

  finished(value: T, at: number): void {
    this.#queue.push({ value, at });
    this.#latest.set(value, at);
  }

  /** A finished value is open again: its notes no longer count. */
  reopened(value: T): void {
    this.#latest.delete(value);
  }

  /** The values finished `ttlMs` before `now` or earlier (and not reopened since), once each. */
  due(now: number): T[] {
    const found: T[] = [];
    while (this.#head < this.#queue.length && this.#queue[this.#head]!.at + this.#ttlMs <= now) {
      const { value, at } = this.#queue[this.#head++]!;
      if (this.#latest.get(value) !== at) continue;
      this.#latest.delete(value);
      found.push(value);
    }
    if (this.#head > 1_024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    return found;
  }
}

/**
 * Ids rejected recently (queue full or queue timeout), remembered for a window and up to a count, so that
 * a client's retry of the same request goes to the front of its tenant's queue. O(1) per operation.
 */
export class RecentIds {
  readonly #expiry = new Map<string, number>();
  #windowMs: number;
  #capacity: number;

  constructor(windowMs: number, capacity: number) {
    this.#windowMs = windowMs;
    this.#capacity = capacity;
  }

  remember(id: string, now: number): void {
    if (this.#capacity === 0) return;
    this.#expiry.delete(id);
    this.#expiry.set(id, now + this.#windowMs);
    if (this.#expiry.size > this.#capacity) {
      const oldest = this.#expiry.keys().next();
      if (!oldest.done) this.#expiry.delete(oldest.value);
    }
  }

  /** True (once) when `id` was remembered and its window has not passed. */
  take(id: string, now: number): boolean {
    const expiry = this.#expiry.get(id);
    if (expiry === undefined) return false;
    this.#expiry.delete(id);
    return expiry >= now;
  }

  get size(): number {
    return this.#expiry.size;
  }
}

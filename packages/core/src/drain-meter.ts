const SIZE = 32;

/**
 * How fast a queue drains, from the times of its last 32 starts: the basis of honest `retryAfterMs`
 * estimates. Fixed memory, O(1) per start.
 */
export class DrainMeter {
  readonly #times = new Float64Array(SIZE);
  #count = 0;
  #next = 0;

  record(now: number): void {
    this.#times[this.#next] = now;
    this.#next = (this.#next + 1) % SIZE;
    if (this.#count < SIZE) this.#count++;
  }

  /** Starts per millisecond over the recent window, or `undefined` before any start. */
  rate(now: number): number | undefined {
    if (this.#count === 0) return undefined;
    const oldest = this.#times[this.#count < SIZE ? 0 : this.#next]!;
    return this.#count / Math.max(1, now - oldest);
  }

  /** Milliseconds until `waiting` more starts happen at the recent rate, or `undefined` if unknown. */
  timeFor(waiting: number, now: number): number | undefined {
    const rate = this.rate(now);
    return rate === undefined ? undefined : waiting / rate;
  }
}

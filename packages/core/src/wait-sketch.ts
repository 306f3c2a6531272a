const GAMMA = 1.02;
const LOG_GAMMA = Math.log(GAMMA);
/** Values at or below this (ms) share the first bucket and read back as 0. */
const FLOOR = 0.1;
const BUCKETS = 1_200;

/** Quantiles of a stream of durations. */
export interface Quantiles {
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/**
 * Wait-time quantiles in fixed memory (about 5 KB): log-spaced buckets 2% apart from 0.1 ms to days, so
 * any quantile it reports is within 1% of a value that was recorded.
 */
export class WaitSketch {
  readonly #counts = new Uint32Array(BUCKETS);
  #count = 0;
  #sum = 0;
  #max = 0;

  record(ms: number): void {
    const value = Number.isNaN(ms) ? 0 : Math.max(ms, 0);
    const bucket =
      value <= FLOOR ? 0 : Math.min(BUCKETS - 1, 1 + Math.ceil(Math.log(value / FLOOR) / LOG_GAMMA));
    this.#counts[bucket]!++;
    this.#count++;
    this.#sum += value;
    if (value > this.#max) this.#max = value;
  }

  /** The value below which a share `q` (0..1) of recorded values fall. */
  quantile(q: number): number {
    if (this.#count === 0) return 0;
    const rank = Math.max(1, Math.ceil(q * this.#count));
    let seen = 0;
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      seen += this.#counts[bucket]!;
      if (seen >= rank) return Math.min(this.#max, bucketValue(bucket));
    }
    return this.#max;
  }

  snapshot(): Quantiles {
    return {
      count: this.#count,
      mean: this.#count === 0 ? 0 : this.#sum / this.#count,
      p50: this.quantile(0.5),
      p95: this.quantile(0.95),
      p99: this.quantile(0.99),
      max: this.#max,
    };
  }
}

function bucketValue(bucket: number): number {
  if (bucket === 0) return 0;
  // The bucket holds (FLOOR·γ^(b-2), FLOOR·γ^(b-1)]; this estimate is within 1% of anything in it.
  return (FLOOR * GAMMA ** (bucket - 1) * 2) / (1 + GAMMA);
}

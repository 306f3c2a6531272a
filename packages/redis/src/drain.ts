/** Samples older than this leave the window (the newest two always stay). */
const WINDOW_MS = 10_000;
/** A new sample is kept at most this often; replies in between only move the newest one. */
const SPACING_MS = 250;
/** Below this span the rate is unknown. */
const MIN_SPAN_MS = 500;

interface Sample {
  readonly at: number;
  readonly starts: number;
}

/**
 * The global drain rate of each priority: starts per second across every instance sharing the store,
 * from the start counters that every script reply carries (Redis counts each grant, whoever asked),
 * sampled on this instance's clock over the last 10 s. Fixed memory per priority.
 *
 * @example
 * const gauge = new DrainGauge();
 * gauge.record({ batch: 120 }, performance.now());
 * // ... a second later, from the next reply:
 * gauge.record({ batch: 150 }, performance.now());
 * gauge.rate("batch"); // about 30
 */
export class DrainGauge {
  readonly #samples = new Map<string, Sample[]>();

  /** Takes in the start counters of one reply, measured at `now` (ms, monotonic). */
  record(starts: Readonly<Record<string, number>>, now: number): void {
    for (const [priority, count] of Object.entries(starts)) {
      const samples = this.#samples.get(priority);
      const newest = samples?.[samples.length - 1];
      if (samples === undefined || newest === undefined || count < newest.starts / 2) {
        this.#samples.set(priority, [{ at: now, starts: count }]); // first, or Redis lost its counters
        continue;
      }
      // A reply that ran before the newest one but arrived after it (another connection): nothing new.
      if (count < newest.starts) continue;
      const previous = samples[samples.length - 2];
      if (previous !== undefined && now - previous.at < SPACING_MS) samples.pop();
      samples.push({ at: now, starts: count });
      while (samples.length > 2 && now - samples[0]!.at > WINDOW_MS) samples.shift();
    }
  }

  /**
   * Starts per second between the oldest and the newest sample (as last measured), or `undefined` when
   * they span too little time to tell.
   */
  rate(priority: string): number | undefined {
    const samples = this.#samples.get(priority);
    if (samples === undefined) return undefined;
    const oldest = samples[0]!;
    const newest = samples[samples.length - 1]!;
    const span = newest.at - oldest.at;
    if (span < MIN_SPAN_MS) return undefined;
    return ((newest.starts - oldest.starts) * 1_000) / span;
  }
}

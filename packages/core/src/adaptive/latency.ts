/** What a window of latency samples says against the long baseline. */
export interface LatencyVerdict {
  /** The window's median, ms. */
  readonly medianMs: number;
  /** The baseline before this window, ms. */
  readonly baselineMs: number;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/**
 * One latency measure (time to first byte, or run time per output token) in windows, against a long
 * baseline: the baseline falls at once to a window's median and rises toward it only slowly (`weight`
 * per window), a slow moving minimum that remembers the lightly loaded server through long busy spells,
 * while each window's median shows the load of now. Medians on both sides, so that a mix of short and
 * long prompts compares like with like. Samples are kept for the current window only.
 *
 * @example
 * const ttfb = new LatencyTrack(0.02);
 * ttfb.add(120);
 * ttfb.close(10); // undefined until 10 samples, and for the first window (it sets the baseline)
 */
export class LatencyTrack {
  readonly #weight: number;
  #samples: number[] = [];
  #baseline: number | undefined;

  constructor(weight: number) {
    this.#weight = weight;
  }

  get count(): number {
    return this.#samples.length;
  }

  /** The baseline in ms (undefined before the first full window). */
  get baselineMs(): number | undefined {
    return this.#baseline;
  }

  add(ms: number): void {
    if (Number.isFinite(ms) && ms >= 0) this.#samples.push(ms);
  }

  /** Forgets the window's samples (after a change of the limit: they belong to the old one). */
  reset(): void {
    this.#samples = [];
  }

  /**
   * Ends the window when it holds `minSamples`: its median and the baseline of before, then the
   * baseline moves. Undefined (and the samples kept) while there are too few. The first window only
   * sets the baseline, and is undefined too: held against itself it would read as calm whatever the
   * load, and a policy that trusts a calm reading (the delay policy's last good limit) would trust it.
   */
  close(minSamples: number): LatencyVerdict | undefined {
    if (this.#samples.length < minSamples) return undefined;
    const sorted = this.#samples.sort((a, b) => a - b);
    this.#samples = [];
    const medianMs = quantile(sorted, 0.5);
    const baselineMs = this.#baseline;
    if (baselineMs === undefined) {
      this.#baseline = medianMs;
      return undefined;
    }
    this.#baseline = medianMs <= baselineMs ? medianMs : baselineMs + (medianMs - baselineMs) * this.#weight;
    return { medianMs, baselineMs };
  }
}

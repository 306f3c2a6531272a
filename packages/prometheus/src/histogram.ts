import { type SampleValue, ScrapedMetric } from "./metric.js";

/**
 * Bucket bounds of every duration histogram, in seconds: 1 ms to 10 min.
 *
 * @example
 * DURATION_BUCKETS.at(-1); // 600
 */
export const DURATION_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
];

/** One label set's buckets (not cumulative: summed at scrape time), sum and count. */
class Series {
  readonly counts = new Float64Array(DURATION_BUCKETS.length + 1);
  sum = 0;
  count = 0;
}

/**
 * A histogram of durations labelled by priority, observed in milliseconds from scheduler events and
 * printed in seconds. Observing finds the priority's series in a map and the bucket in a short scan.
 *
 * @example
 * const wait = new DurationHistogram("llm_scheduler_queue_wait_seconds", "Queue wait");
 * wait.observe("interactive", 12);
 */
export class DurationHistogram extends ScrapedMetric {
  readonly type = "histogram" as const;
  #series = new Map<string, Series>();

  observe(priority: string, ms: number): void {
    let series = this.#series.get(priority);
    if (series === undefined) {
      series = new Series();
      this.#series.set(priority, series);
    }
    const seconds = ms / 1000;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.sum += seconds;
    series.count++;
  }

  values(): SampleValue[] {
    const values: SampleValue[] = [];
    for (const [priority, series] of this.#series) {
      let cumulative = 0;
      for (let bucket = 0; bucket <= DURATION_BUCKETS.length; bucket++) {
        cumulative += series.counts[bucket]!;
        const le = bucket < DURATION_BUCKETS.length ? DURATION_BUCKETS[bucket]! : "+Inf";
        values.push({ metricName: `${this.name}_bucket`, labels: { le, priority }, value: cumulative });
      }
      values.push({ metricName: `${this.name}_sum`, labels: { priority }, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: { priority }, value: series.count });
    }
    return values;
  }

  reset(): void {
    this.#series = new Map();
  }
}

/** One line of a series as prom-client's registry prints it. */
export interface SampleValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName?: string;
}

/** A metric's samples at scrape time, in the shape prom-client's registry formats. */
export interface CollectedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "histogram";
  readonly aggregator: "sum";
  readonly values: SampleValue[];
}

/**
 * What prom-client's `Registry` asks of a metric: a name, `get()` at scrape time and `reset()`. The
 * series fed from scheduler events implement it directly, so that the event path is a few array
 * increments: prom-client's own `inc()`/`observe()` hash their labels on every call
 * (docs/decisions/0023-observers-cost-nothing-unused.md).
 */
export abstract class ScrapedMetric {
  /** Writable: an OpenMetrics registry renames counters. */
  name: string;
  readonly help: string;
  readonly aggregator = "sum" as const;
  abstract readonly type: "counter" | "histogram";
  readonly #beforeScrape: (() => void) | undefined;

  constructor(name: string, help: string, beforeScrape?: () => void) {
    this.name = name;
    this.help = help;
    this.#beforeScrape = beforeScrape;
  }

  /** Samples for prom-client's registry (called by `registry.metrics()`). */
  async get(): Promise<CollectedMetric> {
    this.#beforeScrape?.();
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: this.values(),
    };
  }

  abstract values(): SampleValue[];
  abstract reset(): void;
}

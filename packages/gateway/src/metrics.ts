import { type BatchCountsSource, collectMetrics, type MetricsCollector } from "@llm-scheduler/prometheus";
import { Registry } from "prom-client";
import type { ModelRuntime } from "./model.js";

/** Each model's series in a registry of its own, labelled `model`, served as one exposition. */
export class GatewayMetrics {
  readonly #byModel = new Map<string, { registry: Registry; collector: MetricsCollector }>();
  readonly #batches: BatchCountsSource | undefined;

  constructor(batches: BatchCountsSource | undefined) {
    this.#batches = batches;
  }

  /** Follows this set of models: new ones get their series, removed ones lose theirs. */
  follow(models: ReadonlyMap<string, ModelRuntime>): void {
    for (const [name, entry] of this.#byModel) {
      if (models.get(name) === undefined) {
        entry.collector.stop();
        this.#byModel.delete(name);
      }
    }
    let first = this.#byModel.size === 0;
    for (const [name, model] of models) {
      if (this.#byModel.has(name)) continue;
      const registry = new Registry();
      registry.setDefaultLabels({ model: name });
      // the batch gauges once, on the first model's registry (they are the gateway's, not a model's)
      const batches = first ? this.#batches : undefined;
      first = false;
      const collector = collectMetrics(model.scheduler, {
        registry,
        tenantLabel: { top: 20 },
        // the pool in force at each scrape: a reload may replace it over the same scheduler
        replicas: { metrics: () => model.pool.metrics() },
        ...(batches === undefined ? {} : { batches }),
      });
      this.#byModel.set(name, { registry, collector });
    }
  }

  /** The Prometheus text of every model, each family's HELP and TYPE once. */
  async text(): Promise<string> {
    const families = new Map<string, { head: string[]; samples: string[] }>();
    for (const { registry } of this.#byModel.values()) {
      let current: { head: string[]; samples: string[] } | undefined;
      for (const line of (await registry.metrics()).split("\n")) {
        if (line === "") continue;
        const head = /^# (HELP|TYPE) (\S+)/.exec(line);
        if (head !== null) {
          const name = head[2]!;
          current = families.get(name);
          if (current === undefined) {
            current = { head: [line], samples: [] };
            families.set(name, current);
          } else if (current.head.length < 2 && !current.head.some((l) => l.startsWith(`# ${head[1]}`))) {
            current.head.push(line);
          }
          continue;
        }
        current?.samples.push(line);
      }
    }
    return `${[...families.values()].map((f) => [...f.head, ...f.samples].join("\n")).join("\n")}\n`;
  }

  readonly contentType = "text/plain; version=0.0.4; charset=utf-8";

  close(): void {
    for (const { collector } of this.#byModel.values()) collector.stop();
    this.#byModel.clear();
  }
}

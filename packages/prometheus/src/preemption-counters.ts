import { Counter } from "prom-client";
import type { ScrapeSnapshot } from "./scrape.js";

/**
 * Preemption counters read from `metrics()` at scrape time (not registered yet): how many running
 * requests of each priority were preempted by this instance, and the run time thrown away with them.
 *
 * @example
 * const [preemptions, wasted] = preemptionCounters("llm_scheduler_", scrape);
 */
export function preemptionCounters(prefix: string, scrape: ScrapeSnapshot): Counter[] {
  const counter = (
    name: string,
    help: string,
    read: (row: { preempted: number; preemptedRunMs: number }) => number,
  ) =>
    new Counter({
      name: `${prefix}${name}`,
      help,
      labelNames: ["priority"],
      registers: [],
      collect() {
        this.reset();
        for (const [priority, metrics] of Object.entries(scrape.current().priorities)) {
          const value = read(metrics);
          if (value > 0) this.inc({ priority }, value);
        }
      },
    });
  return [
    counter(
      "preemptions_total",
      "Running requests of this priority stopped by this instance for a more urgent arrival",
      (row) => row.preempted,
    ),
    counter(
      "preempted_seconds_total",
      "Run time thrown away by those preemptions (work the upstream did for nothing)",
      (row) => row.preemptedRunMs / 1000,
    ),
  ];
}

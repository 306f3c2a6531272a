import { Gauge } from "prom-client";
import type { ScrapeSnapshot } from "./scrape.js";

type Row = {
  readonly effectiveWeight: number;
  readonly effectiveReserved: number;
  readonly targetWaitMs: number | null;
};

/**
 * Gauges of each priority's share in force, read from `metrics().priorities[p].share` at scrape time
 * (not registered yet): the effective weight and reserved slots (equal to the configured ones unless a
 * wait target moved them), and the wait target itself, for the priorities that have one.
 *
 * @example
 * const [weight, reserved, target] = shareGauges("llm_scheduler_", scrape);
 */
export function shareGauges(prefix: string, scrape: ScrapeSnapshot): Gauge[] {
  const gauge = (name: string, help: string, read: (share: Row) => number | null) =>
    new Gauge({
      name: `${prefix}${name}`,
      help,
      labelNames: ["priority"],
      registers: [],
      collect() {
        this.reset();
        for (const [priority, metrics] of Object.entries(scrape.current().priorities)) {
          const value = metrics.share === undefined ? null : read(metrics.share);
          if (value !== null) this.set({ priority }, value);
        }
      },
    });
  return [
    gauge(
      "effective_weight",
      "The weight in force per priority: the configured one, or more while a wait target raises it",
      (share) => share.effectiveWeight,
    ),
    gauge(
      "effective_reserved",
      "Slots reserved in force per priority: the configured ones, or more while a wait target raises them",
      (share) => share.effectiveReserved,
    ),
    gauge(
      "wait_target_seconds",
      "The p95 queue wait the priority's targetWaitMs asks for (only priorities with a target)",
      (share) => (share.targetWaitMs === null ? null : share.targetWaitMs / 1000),
    ),
  ];
}

import type { Scheduler } from "@llm-scheduler/core";
import type { Metric } from "prom-client";
import { AdaptiveCounters } from "./adaptive-counters.js";
import { EventSeries } from "./event-series.js";
import { scrapedGauges } from "./gauges.js";
import { type CollectMetricsOptions, resolveCollectOptions } from "./options.js";
import { preemptionCounters } from "./preemption-counters.js";
import { replicaGauges } from "./replica-gauges.js";
import { ScrapeSnapshot } from "./scrape.js";
import { shareGauges } from "./share-gauges.js";
import { TenantRanking } from "./tenant-ranking.js";

/**
 * What `collectMetrics()` returns: `stop()` removes its listeners and its series from the registry.
 *
 * @example
 * const collector = collectMetrics(scheduler, { registry });
 * await scheduler.close();
 * collector.stop();
 */
export interface MetricsCollector {
  stop(): void;
}

/**
 * Adds the scheduler's series to a prom-client registry. Counters and histograms are fed from the
 * scheduler's events as they happen (a few array increments each); gauges are read from `metrics()`
 * when Prometheus scrapes. The series, with the default `prefix`:
 * - `llm_scheduler_requests_total{priority,outcome}`, counter;
 * - `llm_scheduler_queue_wait_seconds{priority}`, `llm_scheduler_run_seconds{priority}` and
 *   `llm_scheduler_time_to_first_byte_seconds{priority}`, histograms from 1 ms to 10 min;
 * - `llm_scheduler_running{priority,scope}`, `llm_scheduler_queued{priority,scope}`,
 *   `llm_scheduler_concurrency_limit`, gauges;
 * - `llm_scheduler_preemptions_total{priority}` and `llm_scheduler_preempted_seconds_total{priority}`,
 *   counters read from `metrics()` (requests of that priority preempted, and the run time lost);
 * - `llm_scheduler_limit_changes_total{reason}` and `llm_scheduler_share_changes_total{priority,reason}`,
 *   counters fed by the `limit` and `share` events (the adaptive limit and wait targets);
 * - `llm_scheduler_effective_weight{priority}`, `llm_scheduler_effective_reserved{priority}` and
 *   `llm_scheduler_wait_target_seconds{priority}`, gauges: each priority's share in force;
 * - with `batches`: `llm_scheduler_batch_items{status}` and `llm_scheduler_batches{status}`, gauges;
 * - with `replicas` (a pool): `llm_scheduler_replica_limit{replica}`, `replica_in_flight`,
 *   `replica_healthy` (1 or 0), `replica_engine_waiting`, `replica_engine_running`,
 *   `replica_kv_cache_usage` (when scraped), gauges, and `replica_ejections_total`,
 *   `replica_failed_before_first_byte_total`, counters read at scrape time.
 * With `tenantLabel: { top }`, `requests_total`, `running` and `queued` also carry `tenant`, capped.
 * Throws `INVALID_OPTION` for a wrong option, and prom-client's error if the names are taken.
 *
 * @example
 * const registry = new Registry();
 * const collector = collectMetrics(scheduler, { registry, tenantLabel: { top: 32 } });
 * app.get("/metrics", async (_req, res) => res.type(registry.contentType).send(await registry.metrics()));
 * // collector.stop() removes the listeners and the series
 */
export function collectMetrics(scheduler: Scheduler, options: CollectMetricsOptions): MetricsCollector {
  const resolved = resolveCollectOptions(options);
  const { registry, prefix, top, halfLifeMs } = resolved;
  const ranking = top > 0 ? new TenantRanking(top, halfLifeMs) : undefined;
  const scrape = new ScrapeSnapshot(scheduler, (snapshot) => {
    if (ranking !== undefined) fed.requests.retain(ranking.rank(snapshot));
  });
  const fed = new EventSeries(scheduler, prefix, ranking, scrape);
  const adaptive = new AdaptiveCounters(scheduler, prefix);
  const stopListening = () => {
    fed.stop();
    adaptive.stop();
  };
  const names: string[] = [];
  try {
    const gauges = [
      ...scrapedGauges(resolved, scrape, ranking),
      ...preemptionCounters(prefix, scrape),
      ...(resolved.replicas === undefined ? [] : replicaGauges(prefix, resolved.replicas)),
      ...shareGauges(prefix, scrape),
      adaptive.limitChanges,
      adaptive.shareChanges,
      adaptive.backoffChanges,
    ] as unknown as Metric[];
    for (const metric of [fed.requests, fed.wait, fed.run, fed.ttfb, ...gauges] as unknown as Metric[]) {
      registry.registerMetric(metric);
      names.push((metric as unknown as { name: string }).name);
    }
  } catch (error) {
    stopListening();
    for (const name of names) registry.removeSingleMetric(name);
    throw error;
  }
  return {
    stop() {
      stopListening();
      for (const name of names) registry.removeSingleMetric(name);
    },
  };
}

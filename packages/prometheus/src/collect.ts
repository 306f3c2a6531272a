import { ErrorCode, type Scheduler, type SchedulerEvents } from "@llm-scheduler/core";
import type { Metric } from "prom-client";
import { registerGauges } from "./gauges.js";
import { DurationHistogram } from "./histogram.js";
import { type CollectMetricsOptions, resolveCollectOptions } from "./options.js";
import { RequestsCounter } from "./requests-counter.js";
import { ScrapeSnapshot } from "./scrape.js";
import { TenantRanking } from "./tenant-ranking.js";

/** What `collectMetrics()` returns: `stop()` removes its listeners and its series from the registry. */
export interface MetricsCollector {
  stop(): void;
}

/** Codes that name how a started request ended, as the `outcome` label (other failures are `failed`). */
const FAILED_OUTCOMES: Readonly<Record<string, string>> = {
  [ErrorCode.RUN_TIMEOUT]: "run_timeout",
  [ErrorCode.ABORTED]: "aborted",
  [ErrorCode.CLOSED]: "closed",
  [ErrorCode.PREEMPTED]: "preempted",
};

/** Rejection codes in lower case, made once. */
const REJECTED_OUTCOMES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(ErrorCode).map((code) => [code, code.toLowerCase()]),
);

/** The event-fed series and the listeners that feed them. */
function listen(
  scheduler: Scheduler,
  prefix: string,
  ranking: TenantRanking | undefined,
  scrape: ScrapeSnapshot,
) {
  // The counter is printed first in a scrape: taking the snapshot then ranks the tenants that label
  // every series printed in it.
  const requests = new RequestsCounter(
    `${prefix}requests_total`,
    "Requests settled by this instance, by priority and outcome (completed, failed, or the rejection code in lower case)",
    ranking !== undefined,
    () => scrape.current(),
  );
  const wait = new DurationHistogram(
    `${prefix}queue_wait_seconds`,
    "Time from submission to a slot, of started requests",
  );
  const run = new DurationHistogram(
    `${prefix}run_seconds`,
    "Time holding a slot, of requests that completed or failed",
  );
  const ttfb = new DurationHistogram(
    `${prefix}time_to_first_byte_seconds`,
    "Queue wait plus the upstream's first byte, reported by the adapters",
  );
  const label = ranking === undefined ? () => "" : (tenant: string) => ranking.label(tenant);
  const onStarted = (event: SchedulerEvents["started"]): void => {
    wait.observe(event.priority, event.waitMs);
    ranking?.note(event.tenant);
  };
  const onCompleted = (event: SchedulerEvents["completed"]): void => {
    requests.inc(event.priority, "completed", label(event.tenant));
    run.observe(event.priority, event.runMs);
  };
  const onFailed = (event: SchedulerEvents["failed"]): void => {
    const outcome = (event.code !== undefined && FAILED_OUTCOMES[event.code]) || "failed";
    requests.inc(event.priority, outcome, label(event.tenant));
    run.observe(event.priority, event.runMs);
  };
  const onRejected = (event: SchedulerEvents["rejected"]): void => {
    requests.inc(event.priority, REJECTED_OUTCOMES[event.code] ?? "rejected", label(event.tenant));
    ranking?.note(event.tenant);
  };
  const onFirstByte = (event: SchedulerEvents["firstByte"]): void =>
    ttfb.observe(event.priority, event.ttfbMs);
  const stops = [
    scheduler.on("started", onStarted),
    scheduler.on("completed", onCompleted),
    scheduler.on("failed", onFailed),
    scheduler.on("rejected", onRejected),
    scheduler.on("firstByte", onFirstByte),
  ];
  return {
    requests,
    histograms: [wait, run, ttfb],
    stop: () => {
      for (const stop of stops) stop();
    },
  };
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
 * - with `batches`: `llm_scheduler_batch_items{status}` and `llm_scheduler_batches{status}`, gauges.
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
  const { registry, prefix, top } = resolved;
  const ranking = top > 0 ? new TenantRanking(top) : undefined;
  const scrape = new ScrapeSnapshot(scheduler, (snapshot) => {
    if (ranking !== undefined) fed.requests.retain(ranking.rank(snapshot));
  });
  const fed = listen(scheduler, prefix, ranking, scrape);
  const names: string[] = [];
  try {
    for (const metric of [fed.requests, ...fed.histograms]) {
      registry.registerMetric(metric as unknown as Metric);
      names.push(metric.name);
    }
    for (const gauge of registerGauges(resolved, scrape, ranking))
      names.push((gauge as unknown as { name: string }).name);
  } catch (error) {
    fed.stop();
    for (const name of names) registry.removeSingleMetric(name);
    throw error;
  }
  return {
    stop() {
      fed.stop();
      for (const name of names) registry.removeSingleMetric(name);
    },
  };
}

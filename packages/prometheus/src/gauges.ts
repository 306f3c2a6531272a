import type { MetricsSnapshot } from "@llm-scheduler/core";
import { Gauge } from "prom-client";
import type { BatchCountsSource, BatchStatusCounts, ResolvedCollectOptions } from "./options.js";
import { OTHER } from "./requests-counter.js";
import type { ScrapeSnapshot } from "./scrape.js";
import type { TenantRanking } from "./tenant-ranking.js";

type Field = "running" | "queued";

/** Per priority (and labelled tenant) counts of `field`; tenants outside the top are `other`. */
function countsOf(snapshot: MetricsSnapshot, field: Field, ranking: TenantRanking | undefined) {
  const rows: Array<{ priority: string; tenant?: string; value: number }> = [];
  for (const [priority, metrics] of Object.entries(snapshot.priorities)) {
    if (ranking === undefined) {
      rows.push({ priority, value: metrics[field] });
      continue;
    }
    let listed = 0;
    for (const entry of snapshot.tenants) {
      if (entry.priority !== priority || !ranking.isLabelled(entry.tenant)) continue;
      listed += entry[field];
      rows.push({ priority, tenant: ranking.label(entry.tenant), value: entry[field] });
    }
    rows.push({ priority, tenant: OTHER, value: Math.max(0, metrics[field] - listed) });
  }
  return rows;
}

/** Gauges read at scrape time (not registered yet): running, queued, the limit, and batches when given. */
export function scrapedGauges(
  options: ResolvedCollectOptions,
  scrape: ScrapeSnapshot,
  ranking: TenantRanking | undefined,
): Gauge[] {
  const { prefix, scope } = options;
  const where =
    scope === "global"
      ? "over every instance sharing the store (the same on each instance: take the max, not the sum)"
      : "on this instance (sum over instances)";
  const labelNames = ranking === undefined ? ["priority", "scope"] : ["priority", "scope", "tenant"];
  const counted = (field: Field, help: string): Gauge =>
    new Gauge({
      name: `${prefix}${field}`,
      help: `${help} ${where}, read at scrape time`,
      labelNames,
      registers: [],
      collect() {
        this.reset();
        for (const { priority, tenant, value } of countsOf(scrape.current(), field, ranking)) {
          this.set(tenant === undefined ? { priority, scope } : { priority, scope, tenant }, value);
        }
      },
    });
  const gauges = [
    counted("running", "Slots (cost units) held by running requests"),
    counted("queued", "Requests waiting for a slot"),
    new Gauge({
      name: `${prefix}concurrency_limit`,
      help: "The scheduler's maxConcurrency now (it moves when the limit is changed or adapts)",
      registers: [],
      collect() {
        this.set(scrape.current().maxConcurrency);
      },
    }),
  ];
  if (options.batches !== undefined) gauges.push(...batchGauges(prefix, options.batches));
  return gauges;
}

function batchGauges(prefix: string, source: BatchCountsSource): Gauge[] {
  let pending: Promise<BatchStatusCounts> | null = null;
  // One statusCounts() call per scrape for both gauges; a source that throws leaves them empty.
  const read = async (): Promise<BatchStatusCounts | undefined> => {
    pending ??= Promise.resolve().then(() => source.statusCounts());
    const current = pending;
    setTimeout(() => {
      if (pending === current) pending = null;
    }, 0);
    return current.then(
      (counts) => counts,
      () => undefined,
    );
  };
  const byStatus = (name: string, help: string, pick: "batches" | "items"): Gauge =>
    new Gauge({
      name: `${prefix}${name}`,
      help,
      labelNames: ["status"],
      registers: [],
      async collect() {
        this.reset();
        const counts = (await read())?.[pick];
        if (typeof counts !== "object" || counts === null) return;
        for (const [status, value] of Object.entries(counts)) {
          if (typeof value === "number" && Number.isFinite(value)) this.set({ status }, value);
        }
      },
    });
  return [
    byStatus("batch_items", "Items of all batches by status, read at scrape time", "items"),
    byStatus("batches", "Batches by status, read at scrape time", "batches"),
  ];
}

import { Counter, Gauge } from "prom-client";
import type { ReplicaRow, ReplicaRowsSource } from "./options.js";

/**
 * Per-replica series of a pool, read from its `metrics()` at scrape time (not registered yet): the
 * limit, requests in flight, health, the engine's queue, batch and KV usage as last scraped, and the
 * ejections and failures before a first byte so far.
 *
 * @example
 * const series = replicaGauges("llm_scheduler_", pool);
 */
export function replicaGauges(prefix: string, source: ReplicaRowsSource): Array<Gauge | Counter> {
  const gauge = (name: string, help: string, read: (row: ReplicaRow) => number | undefined): Gauge =>
    new Gauge({
      name: `${prefix}replica_${name}`,
      help,
      labelNames: ["replica"],
      registers: [],
      collect() {
        this.reset();
        for (const row of source.metrics().replicas) {
          const value = read(row);
          if (value !== undefined) this.set({ replica: row.id }, value);
        }
      },
    });
  const counter = (name: string, help: string, read: (row: ReplicaRow) => number): Counter =>
    new Counter({
      name: `${prefix}replica_${name}`,
      help,
      labelNames: ["replica"],
      registers: [],
      collect() {
        this.reset();
        for (const row of source.metrics().replicas) this.inc({ replica: row.id }, read(row));
      },
    });
  return [
    gauge("limit", "The replica's concurrency limit now (fixed or adaptive)", (row) => row.limit),
    gauge("in_flight", "Requests the pool has in flight on the replica", (row) => row.inFlight),
    gauge("healthy", "1 while the replica takes new work, 0 while it is ejected", (row) =>
      row.healthy ? 1 : 0,
    ),
    gauge(
      "engine_waiting",
      "Requests in the engine's own queue, as last scraped",
      (row) => row.engine?.waiting,
    ),
    gauge(
      "engine_running",
      "Requests in the engine's running batch, as last scraped",
      (row) => row.engine?.running,
    ),
    gauge(
      "kv_cache_usage",
      "The engine's KV cache usage, 0 to 1, as last scraped",
      (row) => row.engine?.kvCacheUsage,
    ),
    counter("ejections_total", "Times the replica was ejected", (row) => row.ejections),
    counter(
      "failed_before_first_byte_total",
      "Attempts on the replica that failed before a first byte and moved on (or gave up)",
      (row) => row.failedBeforeFirstByte,
    ),
  ];
}

import { DrainMeter } from "./drain-meter.js";
import type { ErrorCode } from "./errors.js";
import type { StoreSnapshot } from "./store.js";
import { type Quantiles, WaitSketch } from "./wait-sketch.js";

/** Counts kept in total and per priority. */
export interface TaskCounts {
  /** Cost units in flight (equal to tasks in flight when every cost is 1). */
  readonly running: number;
  readonly queued: number;
  readonly started: number;
  readonly completed: number;
  readonly failed: number;
  /** Tasks that never started, by code (`QUEUE_FULL`, `QUEUE_TIMEOUT`, `ABORTED`, `CLOSED`, …). */
  readonly rejected: Readonly<Partial<Record<ErrorCode, number>>>;
}

/** One priority in a {@link MetricsSnapshot}. */
export interface PriorityMetrics extends TaskCounts {
  /** Slots freed by the grace bound while the task's function still ran. */
  readonly overruns: number;
  /** Running tasks of this priority stopped to make room for a more urgent arrival (preemption). */
  readonly preempted: number;
  /** Run time lost to those preemptions, in ms (the work that was thrown away). */
  readonly preemptedRunMs: number;
  /** Queue wait of started tasks, in ms. */
  readonly waitMs: Quantiles;
  /** Clock time of the last start, or `null`. */
  readonly lastStartedAt: number | null;
  /** Starts per second over the last 32 starts. */
  readonly startRate: number;
  /** Weight and reserved slots, configured and in force (they differ while a wait target moves them). */
  readonly share?: PriorityShare;
}

/** A priority's share as configured and as in force (see `PriorityOptions.targetWaitMs`). */
export interface PriorityShare {
  readonly weight: number;
  readonly reserved: number;
  readonly effectiveWeight: number;
  readonly effectiveReserved: number;
  /** The priority's `targetWaitMs`, or `null` without one. */
  readonly targetWaitMs: number | null;
}

/** What `scheduler.metrics()` returns: a plain object, safe to serialize. */
export interface MetricsSnapshot extends TaskCounts {
  /** Clock time of the snapshot. */
  readonly at: number;
  readonly closed: boolean;
  readonly maxConcurrency: number;
  readonly priorities: Readonly<Record<string, PriorityMetrics>>;
  /** The busiest tenants (queued plus running), at most `metricsTenantLimit`. */
  readonly tenants: StoreSnapshot["tenants"];
}

/** Counters of one priority, kept by this scheduler instance. */
export class PriorityStats {
  started = 0;
  completed = 0;
  failed = 0;
  overruns = 0;
  preempted = 0;
  preemptedRunMs = 0;
  lastStartedAt: number | null = null;
  readonly rejected: Partial<Record<ErrorCode, number>> = {};
  readonly wait = new WaitSketch();
  readonly drain = new DrainMeter();

  recordStart(now: number, waitMs: number): void {
    this.started++;
    this.lastStartedAt = now;
    this.wait.record(waitMs);
    this.drain.record(now);
  }

  recordRejection(code: ErrorCode): void {
    this.rejected[code] = (this.rejected[code] ?? 0) + 1;
  }

  snapshot(now: number, counts: { running: number; queued: number } | undefined): PriorityMetrics {
    return {
      running: counts?.running ?? 0,
      queued: counts?.queued ?? 0,
      started: this.started,
      completed: this.completed,
      failed: this.failed,
      rejected: { ...this.rejected },
      overruns: this.overruns,
      preempted: this.preempted,
      preemptedRunMs: this.preemptedRunMs,
      waitMs: this.wait.snapshot(),
      lastStartedAt: this.lastStartedAt,
      startRate: (this.drain.rate(now) ?? 0) * 1000,
    };
  }
}

/** Assembles the snapshot from the store's counts and each priority's counters. */
export function buildMetrics(
  now: number,
  closed: boolean,
  maxConcurrency: number,
  store: StoreSnapshot,
  books: ReadonlyMap<string, { readonly stats: PriorityStats }>,
  unprioritized: Readonly<Partial<Record<ErrorCode, number>>>,
): MetricsSnapshot {
  const priorities: Record<string, PriorityMetrics> = {};
  const rejected: Partial<Record<ErrorCode, number>> = { ...unprioritized };
  let started = 0;
  let completed = 0;
  let failed = 0;
  for (const [name, { stats }] of books) {
    const snapshot = stats.snapshot(now, store.priorities[name]);
    priorities[name] = snapshot;
    started += snapshot.started;
    completed += snapshot.completed;
    failed += snapshot.failed;
    for (const [code, count] of Object.entries(snapshot.rejected) as Array<[ErrorCode, number]>) {
      rejected[code] = (rejected[code] ?? 0) + count;
    }
  }
  return {
    at: now,
    closed,
    maxConcurrency,
    running: store.running,
    queued: store.queued,
    started,
    completed,
    failed,
    rejected,
    priorities,
    tenants: store.tenants,
  };
}

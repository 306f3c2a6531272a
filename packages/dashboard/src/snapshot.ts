import type { MetricsSnapshot } from "@llm-scheduler/core";
import type { BatchCache } from "./batch-cache.js";
import type { BatchView } from "./batches.js";
import type { ResolvedDashboardOptions } from "./options.js";
import { type PoolView, presentPool, readPool } from "./replicas.js";
import type { Viewer } from "./viewer.js";
import type { WaitWindow, WindowQuantiles } from "./wait-window.js";

/** One priority as the page draws it. */
export interface PriorityView {
  readonly name: string;
  readonly running: number;
  readonly queued: number;
  /** This priority's own concurrency limit (the global one when it has none). */
  readonly limit: number;
  /** The configured weight and reserved slots (what the controls change). */
  readonly weight: number;
  readonly reserved: number;
  /** The weight and reserved slots in force: above the configured ones while a wait target raises them. */
  readonly effectiveWeight: number;
  readonly effectiveReserved: number;
  /** The priority's `targetWaitMs`, or `null` without one. */
  readonly targetWaitMs: number | null;
  /** Running tasks of this priority preempted since the scheduler started, and the run time lost (ms). */
  readonly preempted: number;
  readonly preemptedRunMs: number;
  /** Queue waits of the starts within the window, in ms. */
  readonly waitMs: WindowQuantiles;
  readonly started: number;
  readonly completed: number;
  readonly failed: number;
}

/** What `GET path/api/snapshot` answers and each Server-Sent Event carries. Counts and names only. */
export interface DashboardSnapshot {
  /** The scheduler's clock time, ms. */
  readonly at: number;
  readonly closed: boolean;
  /**
   * `"full"`: tenants and batches included; `"aggregate"`: this request may see totals only, so
   * `tenants` is empty and `batches` is `null`.
   */
  readonly view: "full" | "aggregate";
  /**
   * Whether queue waits were being recorded (they are while someone watches); `false` in history
   * snapshots taken while nobody did, whose `waitMs` then count nothing.
   */
  readonly waitsRecorded: boolean;
  /** The limit in force (`metrics().maxConcurrency`): it moves with `update()` and the adaptive limit. */
  readonly maxConcurrency: number;
  readonly running: number;
  readonly queued: number;
  readonly waitWindowMs: number;
  readonly priorities: readonly PriorityView[];
  /** Tasks that never started, by code, since the scheduler started. */
  readonly rejected: Readonly<Record<string, number>>;
  /** The busiest tenants, as `scheduler.metrics()` reports them; empty in the aggregate view. */
  readonly tenants: MetricsSnapshot["tenants"];
  /**
   * The pool's capacity, healthy capacity and replicas; `null` without `replicas`. In the aggregate
   * view the replicas come without their URLs.
   */
  readonly pool: PoolView | null;
  /** `null` when no batches were given, in the aggregate view, and in history snapshots. */
  readonly batches: readonly BatchView[] | null;
  /** Whether this request may use the controls. */
  readonly controls: boolean;
}

/**
 * Reads `metrics()` (and the pool's, with `replicas`), the resolved options and the wait window into
 * one plain, serializable snapshot, whole (tenants and replica URLs included, batches not): what the
 * history keeps; `present()` cuts it down per viewer.
 *
 * @example
 * const snapshot = readSnapshot(resolveDashboardOptions({ scheduler, access: "open" }), window, true);
 */
export function readSnapshot(
  options: ResolvedDashboardOptions,
  window: WaitWindow,
  waitsRecorded: boolean,
): DashboardSnapshot {
  const { scheduler } = options;
  const metrics = scheduler.metrics();
  const priorities = scheduler.options.priorities.map((priority): PriorityView => {
    const counts = metrics.priorities[priority.name];
    const share = counts?.share;
    return {
      name: priority.name,
      running: counts?.running ?? 0,
      queued: counts?.queued ?? 0,
      limit: Math.min(priority.maxConcurrency, metrics.maxConcurrency),
      weight: priority.weight,
      reserved: priority.reserved,
      effectiveWeight: share?.effectiveWeight ?? priority.weight,
      effectiveReserved: share?.effectiveReserved ?? priority.reserved,
      targetWaitMs: share?.targetWaitMs ?? null,
      preempted: counts?.preempted ?? 0,
      preemptedRunMs: counts?.preemptedRunMs ?? 0,
      waitMs: window.quantiles(priority.name, metrics.at),
      started: counts?.started ?? 0,
      completed: counts?.completed ?? 0,
      failed: counts?.failed ?? 0,
    };
  });
  return {
    at: metrics.at,
    closed: metrics.closed,
    view: "full",
    waitsRecorded,
    maxConcurrency: metrics.maxConcurrency,
    running: metrics.running,
    queued: metrics.queued,
    waitWindowMs: options.waitWindowMs,
    priorities,
    rejected: { ...metrics.rejected },
    tenants: metrics.tenants.slice(0, options.tenantLimit).map((entry) => ({
      tenant: entry.tenant,
      priority: entry.priority,
      running: entry.running,
      queued: entry.queued,
    })),
    pool: options.replicas === undefined ? null : readPool(options.replicas),
    batches: null,
    controls: false,
  };
}

/**
 * A snapshot as one viewer may see it: in the aggregate view no tenant and no batch (not even whether
 * there are any) and no replica URL, and whether the controls are offered.
 *
 * @example
 * json(200, present(readSnapshot(options, window, true), viewer, await batches.list()));
 */
export function present(
  snapshot: DashboardSnapshot,
  viewer: Viewer,
  batches: readonly BatchView[] | null,
): DashboardSnapshot {
  const full = viewer.view === "full";
  return {
    ...snapshot,
    view: full ? "full" : "aggregate",
    tenants: full ? snapshot.tenants : [],
    pool: presentPool(snapshot.pool, full ? "full" : "aggregate"),
    batches: full ? batches : null,
    controls: viewer.controls,
  };
}

/** Where snapshots come from: the wait window, whether waits are recorded now, and the batches. */
export interface SnapshotSources {
  readonly window: WaitWindow;
  readonly recording: () => boolean;
  readonly batches: BatchCache | undefined;
}

/**
 * A fresh snapshot for one viewer, with the batches when it may see them.
 *
 * @example
 * const body = await buildSnapshot(options, sources, { controls: false, view: "aggregate" });
 */
export async function buildSnapshot(
  options: ResolvedDashboardOptions,
  sources: SnapshotSources,
  viewer: Viewer,
): Promise<DashboardSnapshot> {
  const snapshot = readSnapshot(options, sources.window, sources.recording());
  const batches =
    viewer.view === "full" && sources.batches !== undefined ? await sources.batches.list() : null;
  return present(snapshot, viewer, batches);
}

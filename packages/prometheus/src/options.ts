import { invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { Registry, RegistryContentType } from "prom-client";

/**
 * Counts by status, as a batch service reports them.
 *
 * @example
 * const counts: BatchStatusCounts = { batches: { in_progress: 2 }, items: { completed: 40, failed: 1 } };
 */
export interface BatchStatusCounts {
  /** Batches by their status (`in_progress`, `completed`, `failed`, ...). */
  readonly batches: Readonly<Record<string, number>>;
  /** Items of all batches by their status (`queued`, `running`, `completed`, `failed`, ...). */
  readonly items: Readonly<Record<string, number>>;
}

/**
 * What `collectMetrics` needs of a batch service (any object with this method will do): counts by
 * status, read at scrape time, synchronously or as a promise.
 *
 * @example
 * const batches: BatchCountsSource = { statusCounts: () => myBatchService.countsByStatus() };
 * collectMetrics(scheduler, { registry, batches });
 */
export interface BatchCountsSource {
  statusCounts(): BatchStatusCounts | Promise<BatchStatusCounts>;
}

/** One replica of a pool as `replica_*` gauges read it (the shape of `@llm-scheduler/pool`'s rows). */
export interface ReplicaRow {
  readonly id: string;
  readonly limit: number;
  readonly inFlight: number;
  readonly healthy: boolean;
  readonly ejections: number;
  readonly failedBeforeFirstByte: number;
  readonly engine:
    | { readonly waiting: number; readonly running: number; readonly kvCacheUsage: number | undefined }
    | undefined;
}

/**
 * What `collectMetrics` needs of a pool of replicas (a `Pool` of `@llm-scheduler/pool` will do).
 *
 * @example
 * collectMetrics(pool.scheduler, { registry, replicas: pool });
 */
export interface ReplicaRowsSource {
  metrics(): { readonly replicas: readonly ReplicaRow[] };
}

/**
 * Options of `collectMetrics()`.
 *
 * @example
 * const options: CollectMetricsOptions = { registry, tenantLabel: { top: 32 }, scope: "global" };
 */
export interface CollectMetricsOptions {
  /** The prom-client registry to add the series to (serve it with `registry.metrics()`). */
  readonly registry: Registry<RegistryContentType>;
  /** A batch service: adds `batch_items{status}` and `batches{status}` gauges. @default none */
  readonly batches?: BatchCountsSource;
  /** A pool of replicas: adds per-replica gauges (`replica_limit{replica}`, ...). @default none */
  readonly replicas?: ReplicaRowsSource;
  /**
   * Adds a `tenant` label to `requests_total`, `running` and `queued`, for the `top` busiest tenants
   * (queued plus running now, plus their requests counted with exponential decay: each one's weight
   * halves every `halfLifeMs`, 1,000 to 86,400,000, default 60,000); every other tenant is `other`, and
   * a tenant that drops out of the top loses its series. Label values are valid UTF-8 and one per
   * tenant name (see `tenantLabelValue`). @default no tenant label
   */
  readonly tenantLabel?: { readonly top: number; readonly halfLifeMs?: number };
  /** Prefix of every series name. @default "llm_scheduler_" */
  readonly prefix?: string;
  /**
   * What the `running` and `queued` gauges count, said in their `scope` label and HELP text: `"local"`
   * for this instance's own store (the in-memory default; sum them over instances), `"global"` when the
   * store is shared (`@llm-scheduler/redis`: every instance reports the same total, take the max).
   * Counters and histograms are always this instance's (Prometheus sums them). @default "local"
   */
  readonly scope?: "local" | "global";
}

/** {@link CollectMetricsOptions} after defaults and checks. */
export interface ResolvedCollectOptions {
  readonly registry: Registry<RegistryContentType>;
  readonly batches: BatchCountsSource | undefined;
  readonly replicas: ReplicaRowsSource | undefined;
  /** 0 when no tenant label is wanted. */
  readonly top: number;
  /** The half-life of the tenants' decayed request counts, in ms. */
  readonly halfLifeMs: number;
  readonly prefix: string;
  readonly scope: "local" | "global";
}

const KNOWN = ["registry", "batches", "replicas", "tenantLabel", "prefix", "scope"] as const;
const MAX_TOP = 1_000;
const MAX_HALF_LIFE_MS = 86_400_000;
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function integer(field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalidOption(field, `an integer from ${min} to ${max}`, value);
  }
  return value;
}

function tenantLabel(given: unknown): { top: number; halfLifeMs: number } {
  if (given === undefined) return { top: 0, halfLifeMs: 60_000 };
  if (typeof given !== "object" || given === null) throw invalidOption("tenantLabel", "an object", given);
  rejectUnknownKeys("tenantLabel", given as Record<string, unknown>, ["top", "halfLifeMs"]);
  const { top, halfLifeMs = 60_000 } = given as { top?: unknown; halfLifeMs?: unknown };
  return {
    top: integer("tenantLabel.top", top, 1, MAX_TOP),
    halfLifeMs: integer("tenantLabel.halfLifeMs", halfLifeMs, 1_000, MAX_HALF_LIFE_MS),
  };
}

/** Checks every option up front; a wrong one throws a `SchedulerError` (`INVALID_OPTION`). */
export function resolveCollectOptions(given: CollectMetricsOptions): ResolvedCollectOptions {
  if (typeof given !== "object" || given === null) throw invalidOption("options", "an object", given);
  rejectUnknownKeys("", given as unknown as Record<string, unknown>, KNOWN);
  const { registry, batches, replicas, prefix = "llm_scheduler_", scope = "local" } = given;
  if (typeof (registry as { registerMetric?: unknown } | undefined)?.registerMetric !== "function") {
    throw invalidOption("registry", "a prom-client Registry", registry);
  }
  if (batches !== undefined && typeof (batches as { statusCounts?: unknown }).statusCounts !== "function") {
    throw invalidOption("batches", "an object with a statusCounts() method", batches);
  }
  if (replicas !== undefined && typeof (replicas as { metrics?: unknown }).metrics !== "function") {
    throw invalidOption("replicas", "an object with a metrics() method", replicas);
  }
  if (typeof prefix !== "string" || prefix.length > 64 || (prefix !== "" && !NAME.test(prefix))) {
    throw invalidOption("prefix", "a Prometheus metric name prefix of at most 64 characters", prefix);
  }
  if (scope !== "local" && scope !== "global") throw invalidOption("scope", '"local" or "global"', scope);
  return { registry, batches, replicas, ...tenantLabel(given.tenantLabel), prefix, scope };
}

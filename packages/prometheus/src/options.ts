import {
  type InferShape,
  integer,
  matching,
  methods,
  object,
  oneOf,
  required,
  resolveShape,
} from "@llm-scheduler/core/kit";
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

const TENANT_LABEL = {
  top: required(integer(1, 1_000, { doc: "how many of the busiest tenants get their own label value" })),
  halfLifeMs: integer(1_000, 86_400_000, {
    default: 60_000,
    doc: "how fast a tenant's decayed request count forgets: each request's weight halves every this long",
  }),
};

/** Options of `collectMetrics()`, declared once: checks, types and the README table come from here. */
export const COLLECT = {
  registry: required(
    methods<Registry<RegistryContentType>>(["registerMetric"], {
      range: "a prom-client Registry",
      shownRange: "a prom-client `Registry`",
      doc: "the registry to add the series to (serve it with `registry.metrics()`)",
    }),
  ),
  batches: methods<BatchCountsSource>(["statusCounts"], {
    range: "an object with a statusCounts() method",
    shownRange: "an object with `statusCounts()`",
    shownDefault: "none",
    doc: "a batch service: adds `batch_items{status}` and `batches{status}` gauges",
  }),
  replicas: methods<ReplicaRowsSource>(["metrics"], {
    range: "an object with a metrics() method",
    shownRange: "an object with `metrics()`",
    shownDefault: "none",
    doc: "a pool of replicas (`@llm-scheduler/pool`): adds per-replica gauges (`replica_limit{replica}`, ...)",
  }),
  tenantLabel: object(TENANT_LABEL, {
    shownRange: "`{ top, halfLifeMs? }`: `top` 1 to 1,000; `halfLifeMs` 1,000 to 86,400,000 (default 60,000)",
    shownDefault: "no tenant label",
    doc: "adds a `tenant` label to `requests_total`, `running` and `queued` for the `top` busiest tenants (queued plus running, plus decayed requests); every other tenant is `other`",
  }),
  prefix: matching(
    /^([a-zA-Z_:][a-zA-Z0-9_:]{0,63})?$/,
    "a Prometheus metric name prefix of at most 64 characters",
    {
      default: "llm_scheduler_",
      doc: "prefix of every series name",
    },
  ),
  scope: oneOf(["local", "global"], {
    default: "local",
    doc: 'what the `running` and `queued` gauges count: this instance\'s store (`"local"`: sum them), or a shared one (`"global"`, `@llm-scheduler/redis`: take the max)',
  }),
};

/**
 * Options of `collectMetrics()`.
 *
 * @example
 * const options: CollectMetricsOptions = { registry, tenantLabel: { top: 32 }, scope: "global" };
 */
export type CollectMetricsOptions = InferShape<typeof COLLECT>;

/** {@link CollectMetricsOptions} after defaults and checks; `top` is 0 when no tenant label is wanted. */
export type ResolvedCollectOptions = ReturnType<typeof resolveCollectOptions>;

/** Checks every option up front; a wrong one throws a `SchedulerError` (`INVALID_OPTION`). */
export function resolveCollectOptions(given: CollectMetricsOptions) {
  const { tenantLabel, ...rest } = resolveShape(COLLECT, given);
  const halfLifeMs = tenantLabel?.halfLifeMs ?? TENANT_LABEL.halfLifeMs.default;
  return { ...rest, top: tenantLabel?.top ?? 0, halfLifeMs };
}

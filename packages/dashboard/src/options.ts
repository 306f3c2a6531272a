import type { MetricsSnapshot, ResolvedOptions, SchedulerEvents, SchedulerUpdate } from "@llm-scheduler/core";
import { invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { BatchesLike } from "./batches.js";
import type { ReplicasLike } from "./replicas.js";

/** The part of a scheduler the dashboard reads and, with controls allowed, changes: its public API only. */
export interface SchedulerLike {
  on<K extends keyof SchedulerEvents>(name: K, listener: (event: SchedulerEvents[K]) => void): () => void;
  metrics(): MetricsSnapshot;
  update(update: SchedulerUpdate): Promise<void>;
  readonly options: ResolvedOptions;
}

/** Options of `createDashboard()`. */
export interface DashboardOptions {
  /** The scheduler to show. */
  readonly scheduler: SchedulerLike;
  /** Batch jobs to show (`@llm-scheduler/batches` or anything of the same shape). */
  readonly batches?: BatchesLike;
  /**
   * A pool of replicas to show, one row per replica (health, in flight against its limit, engine
   * signals, requests sent, failures) and the pool's capacity against its healthy capacity: a `Pool`
   * of `@llm-scheduler/pool`, or anything with `metrics()` returning `{ replicas }` of that shape.
   * Pass the pool's own scheduler as `scheduler`.
   * @default undefined (no replicas section)
   */
  readonly replicas?: ReplicasLike;
  /**
   * Decides whether a request comes from an operator: `true` lets it see everything (tenants, batches,
   * failed items) and use the controls (change weights and the limit, cancel or retry a batch). A throw
   * or a rejection counts as `false`. What other requests see is `access`.
   * @default undefined (nobody uses the controls; `access` is then required)
   */
  readonly authorize?: (request: Request) => boolean | Promise<boolean>;
  /**
   * What a request that `authorize` does not accept may see (every request, without `authorize`):
   * `"none"`: nothing (the page loads, its feed answers 403); `"aggregate"`: totals only (per priority
   * running, queued, limits, waits, preemptions and rejections: no tenant, no batch); `"open"`:
   * everything but the controls, tenants and batches included. Without `authorize` it must be given,
   * as `"aggregate"` or `"open"`: the dashboard is closed unless told otherwise.
   * @default "none" with `authorize`; required without
   */
  readonly access?: DashboardAccess;
  /**
   * Where the dashboard is mounted: the page answers at `path`, its feed under `path/api/`.
   * @default "/dashboard"
   */
  readonly path?: string;
  /**
   * How often a live stream sends a snapshot, in ms (250 to 60,000).
   * @default 1_000
   */
  readonly intervalMs?: number;
  /**
   * Live streams open at once (1 to 1,000); one more gets a 503.
   * @default 16
   */
  readonly maxStreams?: number;
  /**
   * Live streams for requests `authorize` does not accept, at most: the rest of `maxStreams` stays kept
   * for operators. With `authorize`, 0 to `maxStreams - 1`; without, 1 to `maxStreams`.
   * @default half of `maxStreams` (rounded down) with `authorize`; `maxStreams` without
   */
  readonly maxPublicStreams?: number;
  /**
   * Snapshots kept for a page opened now, in ms of the past (0 to 600,000; 0 keeps none): one every
   * `intervalMs`, from the moment the dashboard is made, sent first on each stream and served at
   * `api/history`.
   * @default 120_000
   */
  readonly historyMs?: number;
  /**
   * The window of the wait quantiles drawn over time, in ms (1,000 to 600,000).
   * @default 10_000
   */
  readonly waitWindowMs?: number;
  /**
   * Tenants shown, the busiest first (1 to 100; the scheduler's `metricsTenantLimit` also caps them).
   * @default 10
   */
  readonly tenantLimit?: number;
}

/** What a request that `authorize` does not accept may see. */
export type DashboardAccess = "none" | "aggregate" | "open";

/** Options after defaults and validation. */
export interface ResolvedDashboardOptions {
  readonly scheduler: SchedulerLike;
  readonly batches: BatchesLike | undefined;
  readonly replicas: ReplicasLike | undefined;
  readonly authorize: ((request: Request) => boolean | Promise<boolean>) | undefined;
  readonly access: DashboardAccess;
  readonly path: string;
  readonly intervalMs: number;
  readonly maxStreams: number;
  readonly maxPublicStreams: number;
  readonly historyMs: number;
  readonly waitWindowMs: number;
  readonly tenantLimit: number;
}

const KNOWN = [
  "scheduler",
  "batches",
  "replicas",
  "authorize",
  "access",
  "path",
  "intervalMs",
  "maxStreams",
  "maxPublicStreams",
  "historyMs",
  "waitWindowMs",
  "tenantLimit",
] as const;

function integer(field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalidOption(field, `an integer from ${min} to ${max}`, value);
  }
  return value;
}

function hasMethods(value: unknown, names: readonly string[]): boolean {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return names.every((name) => typeof record[name] === "function");
}

function mountPath(value: unknown): string {
  if (typeof value !== "string" || !/^(\/[A-Za-z0-9._~-]+)*\/?$/.test(value) || value.length > 200) {
    throw invalidOption("path", "a path such as `/dashboard` (letters, digits, `._~-` and `/`)", value);
  }
  return value.endsWith("/") ? value.slice(0, -1) : value;
}

/** Without `authorize`, the caller must say what everyone may see: the dashboard is closed by default. */
function access(value: unknown, authorized: boolean): DashboardAccess {
  if (!authorized && value !== "aggregate" && value !== "open") {
    const expected =
      '"aggregate" (totals only) or "open" (tenants and batches to anyone) when no `authorize` is given';
    throw invalidOption("access", expected, value);
  }
  if (value === undefined) return "none";
  if (value !== "none" && value !== "aggregate" && value !== "open") {
    throw invalidOption("access", '"none", "aggregate" or "open"', value);
  }
  return value;
}

/** With `authorize`, at least one stream is always kept for operators. */
function publicStreams(value: unknown, maxStreams: number, authorized: boolean): number {
  if (!authorized) return integer("maxPublicStreams", value ?? maxStreams, 1, maxStreams);
  return integer("maxPublicStreams", value ?? Math.floor(maxStreams / 2), 0, maxStreams - 1);
}

/**
 * Drops `undefined`, applies defaults and validates every option, with the scheduler's message shape.
 *
 * @example
 * resolveDashboardOptions({ scheduler, access: "aggregate", path: "/ops" }).intervalMs; // 1000
 */
export function resolveDashboardOptions(options: DashboardOptions): ResolvedDashboardOptions {
  if (typeof options !== "object" || options === null) {
    throw invalidOption("options", "an object", options);
  }
  const given = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as Partial<DashboardOptions>;
  rejectUnknownKeys("", given, KNOWN);
  if (!hasMethods(given.scheduler, ["on", "metrics", "update"])) {
    throw invalidOption("scheduler", "a scheduler (with `on`, `metrics` and `update`)", given.scheduler);
  }
  if (given.batches !== undefined && !hasMethods(given.batches, ["list", "get", "cancel", "retryFailed"])) {
    throw invalidOption("batches", "batches (with `list`, `get`, `cancel` and `retryFailed`)", given.batches);
  }
  if (given.replicas !== undefined && !hasMethods(given.replicas, ["metrics"])) {
    throw invalidOption("replicas", "a pool of replicas (with `metrics`)", given.replicas);
  }
  if (given.authorize !== undefined && typeof given.authorize !== "function") {
    throw invalidOption("authorize", "a function", given.authorize);
  }
  const maxStreams = integer("maxStreams", given.maxStreams ?? 16, 1, 1_000);
  return {
    scheduler: given.scheduler as SchedulerLike,
    batches: given.batches,
    replicas: given.replicas,
    authorize: given.authorize,
    access: access(given.access, given.authorize !== undefined),
    path: mountPath(given.path ?? "/dashboard"),
    intervalMs: integer("intervalMs", given.intervalMs ?? 1_000, 250, 60_000),
    maxStreams,
    maxPublicStreams: publicStreams(given.maxPublicStreams, maxStreams, given.authorize !== undefined),
    historyMs: integer("historyMs", given.historyMs ?? 120_000, 0, 600_000),
    waitWindowMs: integer("waitWindowMs", given.waitWindowMs ?? 10_000, 1_000, 600_000),
    tenantLimit: integer("tenantLimit", given.tenantLimit ?? 10, 1, 100),
  };
}

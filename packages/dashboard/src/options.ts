import type { Scheduler } from "@llm-scheduler/core";
import {
  custom,
  func,
  type Infer,
  type InferShape,
  integer,
  integerIn,
  invalidOption,
  methods,
  oneOf,
  required,
  resolveShape,
} from "@llm-scheduler/core/kit";
import type { BatchesLike } from "./batches.js";
import type { ReplicasLike } from "./replicas.js";

/** The part of a scheduler the dashboard reads and, with controls allowed, changes: its public API only. */
export type SchedulerLike = Pick<Scheduler, "on" | "metrics" | "update" | "options">;

/** What a request that `authorize` does not accept may see. */
export type DashboardAccess = Infer<typeof DASHBOARD.access>;

const PATH = /^(\/[A-Za-z0-9._~-]+)*\/?$/;

/** Options of `createDashboard()`, declared once: types, checks, defaults and the README table come from here. */
export const DASHBOARD = {
  scheduler: required(
    methods<SchedulerLike>(["on", "metrics", "update"], {
      range: "a scheduler (with `on`, `metrics` and `update`)",
      doc: 'the scheduler to show; read through `on("started")`, `metrics()` and `options` only',
    }),
  ),
  batches: methods<BatchesLike>(["list", "get", "cancel", "retryFailed"], {
    range: "batches (with `list`, `get`, `cancel` and `retryFailed`)",
    shownDefault: "none",
    doc: "`@llm-scheduler/batches`, or any object with `list()`, `get(id)`, `cancel(id)`, `retryFailed(id)` and optionally `results(id)` (`BatchesLike`)",
  }),
  replicas: methods<ReplicasLike>(["metrics"], {
    range: "a pool of replicas (with `metrics`)",
    shownDefault: "none",
    doc: "a pool of `@llm-scheduler/pool`, or anything whose `metrics()` returns `{ replicas }` (`ReplicasLike`): one row per replica (health, in flight against its limit, engine signals) and the pool's capacity against its healthy capacity; pass the pool's scheduler as `scheduler`",
  }),
  authorize: func<(request: Request) => boolean | Promise<boolean>>({
    shownDefault: "none",
    doc: "`(request) => boolean | Promise<boolean>`: `true` lets this request see everything and use the controls; a throw or a rejection counts as `false`",
  }),
  access: oneOf(["none", "aggregate", "open"], {
    shownDefault: '`"none"` with `authorize`; required without',
    doc: 'what other requests see (above); without `authorize` it must be given, as `"aggregate"` or `"open"`',
  }),
  path: custom<string>({
    check: (path, value) => {
      if (typeof value === "string" && value.length <= 200 && PATH.test(value))
        return value.replace(/\/$/, "");
      throw invalidOption(path, "a path such as `/dashboard` (letters, digits, `._~-` and `/`)", value);
    },
    range: "a path such as `/dashboard` (letters, digits, `._~-` and `/`)",
    json: { type: "string", maxLength: 200, pattern: PATH.source },
    default: "/dashboard",
    doc: "where it is mounted: the page answers at `path`, its feed under `path/api/`",
  }),
  intervalMs: integer(250, 60_000, {
    default: 1_000,
    doc: "one snapshot per stream, and one history sample, this often",
  }),
  maxStreams: integer(1, 1_000, {
    default: 16,
    doc: "live streams at once; one more gets a 503 `too_many_streams`",
  }),
  maxPublicStreams: integer(0, 1_000, {
    shownRange: "0 to `maxStreams - 1` with `authorize`; 1 to `maxStreams` without",
    shownDefault: "half of `maxStreams` with `authorize`; `maxStreams` without",
    doc: "streams for requests `authorize` does not accept: the rest stays kept for operators",
  }),
  historyMs: integer(0, 600_000, {
    default: 120_000,
    doc: "history kept for a page opened now, one sample every `intervalMs` (0 keeps none and starts no timer)",
  }),
  waitWindowMs: integer(1_000, 600_000, {
    default: 10_000,
    doc: "the sliding window of the wait quantiles drawn over time",
  }),
  tenantLimit: integer(1, 100, {
    default: 10,
    doc: "tenants shown, the busiest first (`metricsTenantLimit` also caps them)",
  }),
};

/** Options of `createDashboard()`. */
export type DashboardOptions = InferShape<typeof DASHBOARD>;

/** Options after defaults and validation. */
export type ResolvedDashboardOptions = ReturnType<typeof resolveDashboardOptions>;

const OPEN_REQUIRED =
  '"aggregate" (totals only) or "open" (tenants and batches to anyone) when no `authorize` is given';

/**
 * Drops `undefined`, applies defaults and validates every option, with the scheduler's message shape.
 * Without `authorize` the caller must say what everyone may see: the dashboard is closed by default;
 * with it, at least one stream is always kept for operators.
 *
 * @example
 * resolveDashboardOptions({ scheduler, access: "aggregate", path: "/ops" }).intervalMs; // 1000
 */
export function resolveDashboardOptions(options: DashboardOptions) {
  // `access` is checked after the others, against `authorize`.
  const given = typeof options === "object" && options !== null ? { ...options, access: undefined } : options;
  const { maxPublicStreams, ...resolved } = resolveShape(DASHBOARD, given);
  const { access } = options;
  const authorized = resolved.authorize !== undefined;
  if (!authorized && access !== "aggregate" && access !== "open")
    throw invalidOption("access", OPEN_REQUIRED, access);
  const { maxStreams } = resolved;
  return {
    ...resolved,
    access: access === undefined ? "none" : DASHBOARD.access.check("access", access),
    maxPublicStreams: authorized
      ? integerIn("maxPublicStreams", maxPublicStreams ?? Math.floor(maxStreams / 2), 0, maxStreams - 1)
      : integerIn("maxPublicStreams", maxPublicStreams ?? maxStreams, 1, maxStreams),
  };
}

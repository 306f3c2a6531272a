import type { AdaptiveOptions, Clock, ConcurrencyRange, SchedulerOptions } from "@llm-scheduler/core";
import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { type EngineLoadOptions, type ResolvedEngineLoad, resolveEngineLoad } from "./engine-load.js";
import type { Routing } from "./routing/create-router.js";
import type { Router } from "./routing/router.js";
import type { RoutingKeyFunction, RoutingKeyOptions } from "./routing/routing-key.js";
import type { SharedOptions } from "./shared-options.js";
import type { SpeedOptions } from "./speed.js";

/** One replica of the model: where it is and how much it may take at once. */
export interface ReplicaOptions {
  /** Base URL, `http://` or `https://`, without a trailing path, e.g. `http://10.0.0.1:8000`. */
  readonly url: string;
  /** Id in metrics and to routers. @default `r<index>` */
  readonly id?: string;
  /** A fixed limit, or `{ initial, min, max }` for an adaptive one (core's controller, per replica). */
  readonly maxConcurrency: number | ConcurrencyRange;
  /** Tunables of the replica's adaptive limit (with a range only), as in core. */
  readonly adaptive?: AdaptiveOptions;
}

/** Active checks and passive ejection. */
export interface HealthOptions {
  /** Path of the active check and of the probe that brings an ejected replica back. @default "/v1/models" */
  readonly path?: string;
  /** Milliseconds between active checks of a healthy replica; 0 turns active checks off. @default 5000 */
  readonly intervalMs?: number;
  /** A check or probe with no answer within this long failed. @default 2000 */
  readonly timeoutMs?: number;
  /** Consecutive failures (connection errors, 5xx, failed checks) that eject a replica. @default 3 */
  readonly failures?: number;
  /** How long the first ejection lasts before a probe; each failed probe doubles it. @default 5000 */
  readonly ejectMs?: number;
  /** The longest an ejection lasts before a probe. @default 60000 */
  readonly maxEjectMs?: number;
}

/** Scraping the engines' Prometheus endpoints. */
export interface SignalsOptions {
  /** Path of the Prometheus text endpoint. @default "/metrics" */
  readonly path?: string;
  /** Milliseconds between scrapes; 0 turns scraping off. @default 1000 */
  readonly intervalMs?: number;
  /** Priorities held back from a replica whose engine is busy. @default ["batch"] */
  readonly holdBack?: readonly string[];
  /** A held-back priority skips a replica with more than this many requests in the engine's queue. @default 0 */
  readonly maxWaiting?: number;
  /** A held-back priority skips a replica whose KV cache usage (0..1) is above this. @default 0.9 */
  readonly maxKvCacheUsage?: number;
  /**
   * What feeds each adaptive replica limit (`maxConcurrency: { initial, min, max }`): an engine queue
   * longer than `maxWaiting` (0) or a KV cache usage above `maxKvCacheUsage` (0.95) through a window cuts
   * it to where the engine would stop queueing; an engine under both lets it grow. `false`: the limits
   * read only latency and errors. Fixed limits are not touched.
   * @default {}
   */
  readonly limit?: EngineLoadOptions | false;
}

/**
 * The pool's scheduler: every core option; `maxConcurrency` is a fixed number, capped by the sum of
 * the healthy replicas' limits (which it is when not given).
 */
export interface PoolSchedulerOptions extends Omit<SchedulerOptions, "maxConcurrency"> {
  /**
   * Requests in flight over the whole pool, 1 to 1,000,000, at most the healthy replicas' sum: set it
   * to what the engines run when the replicas' limits hold more than that (decision 0049).
   * @default the sum of the healthy replicas' limits
   */
  readonly maxConcurrency?: number;
}

/** Options of {@link createPool}. */
export interface PoolOptions {
  readonly replicas: readonly ReplicaOptions[];
  readonly scheduler?: PoolSchedulerOptions;
  /** Where each request goes: a router by name, or a `Router` of your own. @default "prefix" */
  readonly routing?: Routing | Router;
  /**
   * The routing key of a request that `pool.fetch()` gets without one: `createRoutingKey()` with these
   * options over its JSON body and headers, your own function of (body, headers), or `false` for none.
   * @default {}
   */
  readonly routingKey?: RoutingKeyOptions | RoutingKeyFunction | false;
  /** Further replicas a request that failed before its first byte may be sent to. @default 2 */
  readonly retries?: number;
  /** Health checking; `false` turns active checks, ejection and probes off. @default {} */
  readonly health?: HealthOptions | false;
  /** Engine signals; `false` turns scraping off. @default {} */
  readonly signals?: SignalsOptions | false;
  /**
   * Each replica's streaming speed, measured from the answers the pool hands on, weighs its limit in
   * `prefix`'s load bound (a replica at half speed counts half its limit); `false` turns it off.
   * @default {}
   */
  readonly speed?: SpeedOptions | false;
  /** The `fetch` used for requests, checks and scrapes. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** Time for checks, ejections and staleness (and the scheduler's, unless `scheduler.clock` is given). */
  readonly clock?: Clock;
  /** A ledger shared by every gateway instance of the pool (replica leases and ejections). @default none */
  readonly shared?: SharedOptions;
}

export type ResolvedHealth = Required<HealthOptions>;
export interface ResolvedSignals extends Required<Omit<SignalsOptions, "limit">> {
  /** What feeds the adaptive replica limits; undefined with `limit: false`. */
  readonly limit: ResolvedEngineLoad | undefined;
}

const DAY_MS = 86_400_000;
const POOL_KEYS = [
  "replicas",
  "scheduler",
  "routing",
  "routingKey",
  "retries",
  "health",
  "signals",
  "speed",
  "fetch",
  "clock",
  "shared",
];
const REPLICA_KEYS = ["url", "id", "maxConcurrency", "adaptive"];
const HEALTH_DEFAULTS: ResolvedHealth = {
  path: "/v1/models",
  intervalMs: 5_000,
  timeoutMs: 2_000,
  failures: 3,
  ejectMs: 5_000,
  maxEjectMs: 60_000,
};
const SIGNALS_DEFAULTS: Omit<ResolvedSignals, "limit"> = {
  path: "/metrics",
  intervalMs: 1_000,
  holdBack: ["batch"],
  maxWaiting: 0,
  maxKvCacheUsage: 0.9,
};

/** Checks the replicas' entries: URLs, unique ids; the limits are checked by each replica's limiter. */
export function resolveReplicas(replicas: unknown): { id: string; options: ReplicaOptions }[] {
  if (!Array.isArray(replicas) || replicas.length === 0 || replicas.length > 1_000) {
    throw invalidOption("replicas", "an array of 1 to 1000 replicas", replicas);
  }
  const ids = new Set<string>();
  return replicas.map((entry: unknown, index) => {
    const at = `replicas[${index}]`;
    if (typeof entry !== "object" || entry === null) throw invalidOption(at, "an object", entry);
    rejectUnknownKeys(at, entry, REPLICA_KEYS);
    const options = entry as ReplicaOptions;
    if (typeof options.url !== "string" || !/^https?:\/\/[^/]+$/.test(options.url.replace(/\/$/, ""))) {
      throw invalidOption(`${at}.url`, "an http(s) URL without a path", options.url);
    }
    const id = options.id ?? `r${index}`;
    if (typeof id !== "string" || id === "" || id.length > 128 || ids.has(id)) {
      throw invalidOption(`${at}.id`, "a unique string of 1 to 128 characters", options.id);
    }
    ids.add(id);
    return { id, options: { ...options, url: options.url.replace(/\/$/, "") } };
  });
}

/** Merges the health options over their defaults and checks every value. */
export function resolveHealth(health: HealthOptions | false | undefined): ResolvedHealth | undefined {
  if (health === false) return undefined;
  const given = objectAt("health", health ?? {}, Object.keys(HEALTH_DEFAULTS));
  const merged = { ...HEALTH_DEFAULTS, ...definedOnly(given) } as ResolvedHealth;
  pathAt("health.path", merged.path);
  integerIn("health.intervalMs", merged.intervalMs, 0, DAY_MS);
  integerIn("health.timeoutMs", merged.timeoutMs, 1, DAY_MS);
  integerIn("health.failures", merged.failures, 1, 1_000);
  integerIn("health.ejectMs", merged.ejectMs, 1, DAY_MS);
  integerIn("health.maxEjectMs", merged.maxEjectMs, merged.ejectMs, DAY_MS);
  return merged;
}

/** Merges the signal options over their defaults and checks every value. */
export function resolveSignals(signals: SignalsOptions | false | undefined): ResolvedSignals | undefined {
  if (signals === false) return undefined;
  const given = objectAt("signals", signals ?? {}, [...Object.keys(SIGNALS_DEFAULTS), "limit"]);
  const limit = resolveEngineLoad("signals.limit", (given as SignalsOptions).limit);
  const merged = { ...SIGNALS_DEFAULTS, ...definedOnly(given), limit } as ResolvedSignals;
  pathAt("signals.path", merged.path);
  integerIn("signals.intervalMs", merged.intervalMs, 0, DAY_MS);
  integerIn("signals.maxWaiting", merged.maxWaiting, 0, 1_000_000);
  const kv = merged.maxKvCacheUsage;
  if (typeof kv !== "number" || !(kv >= 0 && kv <= 1)) {
    throw invalidOption("signals.maxKvCacheUsage", "a number from 0 to 1", kv);
  }
  if (!Array.isArray(merged.holdBack) || merged.holdBack.some((name) => typeof name !== "string")) {
    throw invalidOption("signals.holdBack", "an array of priority names", merged.holdBack);
  }
  return merged;
}

/** Checks the pool's top-level keys and `retries`; returns the number of retries. */
export function resolveRetries(options: PoolOptions): number {
  if (typeof options !== "object" || options === null) throw invalidOption("options", "an object", options);
  rejectUnknownKeys("", options, POOL_KEYS);
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw invalidOption("fetch", "a function", options.fetch);
  }
  return integerIn("retries", options.retries, 0, 100, 2);
}

/** The scheduler's limit as configured (`undefined`: the healthy replicas' sum), checked. */
export function resolveSchedulerLimit(scheduler: PoolSchedulerOptions | undefined): number | undefined {
  if (scheduler === undefined) return undefined;
  if (typeof scheduler !== "object" || scheduler === null) {
    throw invalidOption("scheduler", "an object", scheduler);
  }
  if (scheduler.maxConcurrency === undefined) return undefined;
  return integerIn("scheduler.maxConcurrency", scheduler.maxConcurrency, 1, 1_000_000);
}

function objectAt(path: string, value: unknown, known: readonly string[]): object {
  if (typeof value !== "object" || value === null) throw invalidOption(path, "an object or `false`", value);
  rejectUnknownKeys(path, value, known);
  return value;
}

function pathAt(field: string, value: unknown): void {
  if (typeof value !== "string" || !value.startsWith("/") || value.length > 1_000) {
    throw invalidOption(field, "a path starting with `/`", value);
  }
}

function definedOnly(object: object): object {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

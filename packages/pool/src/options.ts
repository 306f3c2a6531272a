import type {
  AdaptiveOptions,
  Clock,
  ConcurrencyRange,
  Scheduler,
  SchedulerOptions,
} from "@llm-scheduler/core";
import { integerIn, invalidOption, object, rejectUnknownKeys, withDefaults } from "@llm-scheduler/core/kit";
import { type EngineLoadOptions, type ResolvedEngineLoad, resolveEngineLoad } from "./engine-load.js";
import type { Routing } from "./routing/create-router.js";
import type { Router } from "./routing/router.js";
import type { RoutingKeyFunction, RoutingKeyOptions } from "./routing/routing-key.js";
import { HEALTH_SCHEMA, orOff, POOL_SCHEMA, REPLICA_SCHEMA, SIGNALS_SCHEMA } from "./schema.js";
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
  /**
   * The pool's scheduler: options for one the pool makes (and closes with it), or a `Scheduler` of your
   * own, e.g. the one an adapter's middleware already admits requests with (then send them with
   * `pool.forward(permit, ...)`): the pool sets its `maxConcurrency` to the pool's capacity and leaves
   * closing it to you. @default core's defaults
   */
  readonly scheduler?: PoolSchedulerOptions | Scheduler;
  /**
   * Caps the scheduler's limit (1 to 1,000,000) as `scheduler.maxConcurrency` does; the way to give the cap
   * with a `Scheduler` of your own. Not both. @default the sum of the healthy replicas' limits
   */
  readonly maxConcurrency?: number;
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
  "maxConcurrency",
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
const REPLICA_NODE = object(REPLICA_SCHEMA, { doc: "one replica" });
const HEALTH_NODE = orOff(object(HEALTH_SCHEMA, { doc: "health" }));
const SIGNALS_NODE = orOff(object(SIGNALS_SCHEMA, { doc: "signals" }));

/** Checks the replicas' entries: URLs, unique ids; the limits are checked by each replica's limiter. */
export function resolveReplicas(replicas: unknown): { id: string; options: ReplicaOptions }[] {
  if (!Array.isArray(replicas) || replicas.length === 0 || replicas.length > 1_000) {
    throw invalidOption("replicas", "an array of 1 to 1000 replicas", replicas);
  }
  const ids = new Set<string>();
  return replicas.map((entry: unknown, index) => {
    const at = `replicas[${index}]`;
    const options = REPLICA_NODE.check(at, entry) as ReplicaOptions;
    const id = options.id ?? `r${index}`;
    if (ids.has(id)) throw invalidOption(`${at}.id`, "a unique string of 1 to 128 characters", id);
    ids.add(id);
    return { id, options };
  });
}

/** Merges the health options over their defaults and checks every value. */
export function resolveHealth(health: HealthOptions | false | undefined): ResolvedHealth | undefined {
  const given = HEALTH_NODE.check("health", health ?? {});
  if (given === false) return undefined;
  const merged = withDefaults(HEALTH_SCHEMA, given) as ResolvedHealth;
  integerIn("health.maxEjectMs", merged.maxEjectMs, merged.ejectMs, DAY_MS);
  return merged;
}

/** Merges the signal options over their defaults and checks every value. */
export function resolveSignals(signals: SignalsOptions | false | undefined): ResolvedSignals | undefined {
  const given = SIGNALS_NODE.check("signals", signals ?? {});
  if (given === false) return undefined;
  const limit = resolveEngineLoad("signals.limit", given.limit);
  return { ...withDefaults(SIGNALS_SCHEMA, given), limit } as ResolvedSignals;
}

/** Checks the pool's top-level keys and `retries`; returns the number of retries. */
export function resolveRetries(options: PoolOptions): number {
  if (typeof options !== "object" || options === null) throw invalidOption("options", "an object", options);
  rejectUnknownKeys("", options, POOL_KEYS);
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw invalidOption("fetch", "a function", options.fetch);
  }
  return options.retries === undefined ? 2 : POOL_SCHEMA.retries.check("retries", options.retries);
}

/** True when `scheduler` is a `Scheduler` of the caller's own rather than options for one. */
export function isScheduler(scheduler: PoolOptions["scheduler"]): scheduler is Scheduler {
  return typeof (scheduler as Scheduler | undefined)?.acquire === "function";
}

/** The scheduler's limit as configured (`undefined`: the healthy replicas' sum), checked. */
export function resolveSchedulerLimit(options: PoolOptions): number | undefined {
  const { scheduler } = options;
  if (scheduler !== undefined && (typeof scheduler !== "object" || scheduler === null)) {
    throw invalidOption("scheduler", "an object", scheduler);
  }
  const inOptions = isScheduler(scheduler) ? undefined : scheduler?.maxConcurrency;
  if (inOptions !== undefined && options.maxConcurrency !== undefined) {
    throw invalidOption(
      "maxConcurrency",
      "left out when `scheduler.maxConcurrency` is given",
      options.maxConcurrency,
    );
  }
  if (options.maxConcurrency !== undefined) {
    return integerIn("maxConcurrency", options.maxConcurrency, 1, 1_000_000);
  }
  if (inOptions === undefined) return undefined;
  return integerIn("scheduler.maxConcurrency", inOptions, 1, 1_000_000);
}

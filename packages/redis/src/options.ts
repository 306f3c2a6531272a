import { randomBytes } from "node:crypto";
import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { Cluster, Redis } from "ioredis";
import { checkConnection, isCluster, keyPrefix } from "./connection-options.js";

/**
 * An ioredis client (standalone, Sentinel or Cluster), with either reply mapping; the store only runs
 * scripts and pub/sub on it.
 */
export type RedisClient = Redis | Redis<"resp3"> | Cluster | Cluster<"resp3">;

/** What the store does while Redis cannot be reached. */
export type OnStoreError = "fail-closed" | "local";

/** Whose clock measures how long a ticket has waited (for each priority's `maxWaitMs` aging bound). */
export type AgingClock = "redis" | "scheduler";

/** Where the store stands: talking to Redis, running on the local fallback, or neither. */
export type RedisStoreStatus = "connecting" | "connected" | "local" | "unavailable" | "closed";

/** Everything `new RedisStore()` accepts. Every field is optional. */
export interface RedisStoreOptions {
  /**
   * Where Redis listens, e.g. `redis://127.0.0.1:6379/0` or `rediss://user:pass@host:6380`. The store
   * then owns its connections and `close()` ends them. Give either `url` or `client`, not both.
   * @default "redis://127.0.0.1:6379"
   */
  readonly url?: string;
  /**
   * An ioredis client to reuse, with its connection settings (TLS, Sentinel, auth). The store runs its
   * commands on it and opens one `duplicate()` for its pub/sub subscription; `close()` leaves the client
   * itself open.
   */
  readonly client?: RedisClient;
  /**
   * Redis Cluster: the URLs of some of its nodes (`redis://` or `rediss://`, 1 to 64 of them); the
   * store opens an ioredis `Cluster` on them and `close()` ends it. Give one of `url`, `client` or
   * `cluster`. (To reuse a `Cluster` you have, pass it as `client`.)
   *
   * @example
   * new RedisStore({ cluster: ["redis://10.0.0.1:7000", "redis://10.0.0.2:7000"], prefix: "{gpt}:" })
   */
  readonly cluster?: readonly string[];
  /**
   * Prefix of every key and channel. Instances that share a prefix share one scheduler. On Redis
   * Cluster every key of one scheduler must hash to one slot: a prefix with a hash tag (`"{llm}:"`)
   * is used as it is, and one without is wrapped into one (`"llm:"` becomes `"{llm:}"`), so one prefix
   * is one slot. On a standalone Redis the prefix is used as given.
   * @default "llm:"
   */
  readonly prefix?: string;
  /**
   * Time to live of a slot's lease (100 ms to 1 hour) and of this instance's heartbeat. Leases are renewed while tasks run
   * (every `min(pollMs, leaseMs / 3)`); when an instance dies, its slots come back and its queued tickets
   * are purged within about this long. A task whose lease lapsed (its instance stalled for longer) is
   * stopped: its signal aborts as soon as the instance runs again.
   * @default 10_000
   */
  readonly leaseMs?: number;
  /**
   * Longest interval between heartbeats (10 ms to 1 hour) (`min(pollMs, leaseMs / 3)`): the safety poll that picks up
   * grants whose pub/sub message was lost (grants normally arrive by pub/sub at once), and the pace of
   * reconnection attempts while Redis is down, which is also the `retryAfterMs` of the tickets dropped
   * when failing closed.
   * @default 1_000
   */
  readonly pollMs?: number;
  /**
   * While Redis cannot be reached: `"fail-closed"` rejects new tasks with `STORE_UNAVAILABLE` (adapters
   * answer 503), and the waiting ones too once a reconnection attempt has failed; `"local"` runs them
   * under a local limit of `maxConcurrency / expectedInstances` with a bounded local queue. Either way
   * the store reconnects and reconciles by itself.
   * @default "fail-closed"
   */
  readonly onStoreError?: OnStoreError;
  /**
   * How many instances normally share the limit (1 to 10,000); sets the local limit in `"local"` mode
   * (required there).
   */
  readonly expectedInstances?: number;
  /**
   * In `"local"` mode, at most this many tasks wait locally (and never more than the priorities'
   * own `maxQueue`); 1 to 10,000,000.
   * @default 1_000
   */
  readonly localMaxQueue?: number;
  /**
   * `"redis"`: waiting time is measured by Redis's clock, the same for every instance whatever the
   * skew between hosts. `"scheduler"`: by the scheduler's clock (a `VirtualClock` in tests), which must
   * then agree across hosts. Leases always use Redis's clock.
   * @default "redis"
   */
  readonly agingClock?: AgingClock;
  /**
   * A script call that gets no reply in this long fails, and Redis counts as unavailable (a hung server
   * does not close its connections); 1 ms to 10 minutes.
   * @default 2_000
   */
  readonly commandTimeoutMs?: number;
  /**
   * This instance's id in Redis (letters, digits, `-` and `_`). Must be unique among live instances.
   * @default 16 random hex digits
   */
  readonly instanceId?: string;
  /**
   * Called with errors the store handles in the background (connection lost, reconciliation failed).
   * What it throws is ignored.
   */
  readonly onError?: (error: unknown) => void;
  /**
   * Called once each time the store's `status` changes, e.g. to `"local"` when Redis cannot be reached
   * and the local fallback takes over, and back to `"connected"`. What it throws goes to `onError`.
   *
   * @example
   * onStatusChange: (status, previous) => console.warn(`redis store: ${previous} -> ${status}`)
   */
  readonly onStatusChange?: (status: RedisStoreStatus, previous: RedisStoreStatus) => void;
}

/** The options after defaults and validation. */
export interface ResolvedRedisOptions {
  readonly url: string | undefined;
  readonly client: RedisClient | undefined;
  /** The URLs of the cluster's nodes to open a `Cluster` on, when the store opens one itself. */
  readonly cluster: readonly string[] | undefined;
  /** The prefix of every key: the one given, in a hash tag on a cluster (see {@link keyPrefix}). */
  readonly prefix: string;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly onStoreError: OnStoreError;
  readonly expectedInstances: number;
  readonly localMaxQueue: number;
  readonly agingClock: AgingClock;
  readonly commandTimeoutMs: number;
  readonly instanceId: string;
  readonly onError: (error: unknown) => void;
  readonly onStatusChange: (status: RedisStoreStatus, previous: RedisStoreStatus) => void;
}

const KNOWN = [
  "url",
  "client",
  "cluster",
  "prefix",
  "leaseMs",
  "pollMs",
  "onStoreError",
  "expectedInstances",
  "localMaxQueue",
  "agingClock",
  "commandTimeoutMs",
  "instanceId",
  "onError",
  "onStatusChange",
];

function callback<A extends unknown[]>(field: string, value: unknown): ((...args: A) => void) | undefined {
  if (value !== undefined && typeof value !== "function") throw invalidOption(field, "a function", value);
  return value as ((...args: A) => void) | undefined;
}

/** The user's error callback, made safe: what it throws is dropped (there is nobody left to tell). */
function quiet(onError: ((error: unknown) => void) | undefined): (error: unknown) => void {
  if (onError === undefined) return () => {};
  return (error) => {
    try {
      onError(error);
    } catch {}
  };
}

/** The user's status callback, made safe: what it throws goes to `onError`. */
function guarded(
  onStatusChange: ((status: RedisStoreStatus, previous: RedisStoreStatus) => void) | undefined,
  onError: (error: unknown) => void,
): (status: RedisStoreStatus, previous: RedisStoreStatus) => void {
  if (onStatusChange === undefined) return () => {};
  return (status, previous) => {
    try {
      onStatusChange(status, previous);
    } catch (error) {
      onError(error);
    }
  };
}

function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(value as T))
    throw invalidOption(field, allowed.map((a) => `"${a}"`).join(" or "), value);
  return value as T;
}

/**
 * Drops `undefined` fields, merges defaults and validates every field up front, throwing a
 * `SchedulerError` with code `INVALID_OPTION` that names the field and the value.
 *
 * @example
 * resolveRedisOptions({ leaseMs: 0 }); // throws "Expected `leaseMs` to be an integer from 100 to 3600000, got `0` (number)"
 */
export function resolveRedisOptions(options: RedisStoreOptions = {}): ResolvedRedisOptions {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw invalidOption("options", "an object", options);
  }
  rejectUnknownKeys("", options, KNOWN);
  const given = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as RedisStoreOptions;
  const cluster = checkConnection(given);
  const prefix = given.prefix ?? "llm:";
  if (typeof prefix !== "string" || prefix.length === 0 || prefix.length > 128) {
    throw invalidOption("prefix", "a non-empty string of at most 128 characters", prefix);
  }
  const onStoreError = oneOf("onStoreError", given.onStoreError ?? "fail-closed", ["fail-closed", "local"]);
  if (onStoreError === "local" && given.expectedInstances === undefined) {
    throw invalidOption("expectedInstances", 'a positive integer when `onStoreError` is "local"', undefined);
  }
  const instanceId = given.instanceId ?? randomBytes(8).toString("hex");
  if (typeof instanceId !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(instanceId)) {
    throw invalidOption("instanceId", "1 to 64 letters, digits, `-` or `_`", instanceId);
  }
  const onError = quiet(callback<[unknown]>("onError", given.onError));
  const onStatusChange = callback<[RedisStoreStatus, RedisStoreStatus]>(
    "onStatusChange",
    given.onStatusChange,
  );
  return {
    url:
      given.url ??
      (given.client === undefined && cluster === undefined ? "redis://127.0.0.1:6379" : undefined),
    client: given.client,
    cluster,
    prefix: keyPrefix(prefix, cluster !== undefined || isCluster(given.client)),
    leaseMs: integerIn("leaseMs", given.leaseMs ?? 10_000, 100, 3_600_000),
    pollMs: integerIn("pollMs", given.pollMs ?? 1_000, 10, 3_600_000),
    onStoreError,
    expectedInstances: integerIn("expectedInstances", given.expectedInstances ?? 1, 1, 10_000),
    localMaxQueue: integerIn("localMaxQueue", given.localMaxQueue ?? 1_000, 1, 10_000_000),
    agingClock: oneOf("agingClock", given.agingClock ?? "redis", ["redis", "scheduler"]),
    commandTimeoutMs: integerIn("commandTimeoutMs", given.commandTimeoutMs ?? 2_000, 1, 600_000),
    instanceId,
    onError,
    onStatusChange: guarded(onStatusChange, onError),
  };
}

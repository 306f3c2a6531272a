import { randomBytes } from "node:crypto";
import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { Redis } from "ioredis";

/** An ioredis client, with either reply mapping; the store only runs scripts and pub/sub on it. */
export type RedisClient = Redis | Redis<"resp3">;

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
   * Prefix of every key and channel. Instances that share a prefix share one scheduler. For Redis
   * Cluster, put a hash tag in it (`"{llm}:"`) so that every key lands in one slot.
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

/** A URL as error messages may show it: the credentials in it (up to its last `@`) become `***`. */
function redacted(url: unknown): unknown {
  return typeof url === "string" ? url.replace(/^([a-z][a-z0-9+.-]*:\/*).*@/i, "$1***@") : url;
}

function isClient(value: unknown): value is RedisClient {
  const candidate = value as { evalsha?: unknown; duplicate?: unknown } | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.evalsha === "function" &&
    typeof candidate.duplicate === "function"
  );
}

/** Either `url` (a redis:// URL) or `client` (an ioredis client), never both; no password shown. */
function checkConnection(given: RedisStoreOptions): void {
  if (given.url !== undefined && given.client !== undefined) {
    throw invalidOption("url", "left out when `client` is given", redacted(given.url));
  }
  if (given.url !== undefined && (typeof given.url !== "string" || !/^rediss?:\/\//.test(given.url))) {
    throw invalidOption("url", "a redis:// or rediss:// URL", redacted(given.url));
  }
  if (given.client !== undefined && !isClient(given.client)) {
    // An object is not shown: another client's options may hold a password.
    const shown = typeof given.client === "object" && given.client !== null ? {} : given.client;
    throw invalidOption("client", "an ioredis client", shown);
  }
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
  checkConnection(given);
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
    url: given.url ?? (given.client === undefined ? "redis://127.0.0.1:6379" : undefined),
    client: given.client,
    prefix,
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

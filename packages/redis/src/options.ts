import { randomBytes } from "node:crypto";
import { invalidOption as invalid } from "@llm-scheduler/core/kit";
import type { Redis } from "ioredis";

/** An ioredis client, with either reply mapping; the store only runs scripts and pub/sub on it. */
export type RedisClient = Redis | Redis<"resp3">;

/** What the store does while Redis cannot be reached. */
export type OnStoreError = "fail-closed" | "local";

/** Whose clock measures how long a ticket has waited (for each priority's `maxWaitMs` aging bound). */
export type AgingClock = "redis" | "scheduler";

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
   * Time to live of a slot's lease and of this instance's heartbeat. Leases are renewed while tasks run
   * (every `min(pollMs, leaseMs / 3)`); when an instance dies, its slots come back and its queued tickets
   * are purged within about this long. A task whose lease lapsed (its instance stalled for longer) is
   * stopped: its signal aborts as soon as the instance runs again.
   * @default 10_000
   */
  readonly leaseMs?: number;
  /**
   * Longest interval between heartbeats (`min(pollMs, leaseMs / 3)`): the safety poll that picks up
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
   * How many instances normally share the limit; sets the local limit in `"local"` mode (required there).
   */
  readonly expectedInstances?: number;
  /**
   * In `"local"` mode, at most this many tasks wait locally (and never more than the priorities'
   * own `maxQueue`).
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
   * does not close its connections).
   * @default 2_000
   */
  readonly commandTimeoutMs?: number;
  /**
   * This instance's id in Redis (letters, digits, `-` and `_`). Must be unique among live instances.
   * @default 16 random hex digits
   */
  readonly instanceId?: string;
  /** Called with errors the store handles in the background (connection lost, reconciliation failed). */
  readonly onError?: (error: unknown) => void;
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
}

const KNOWN = new Set([
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
]);

function integerAtLeast(field: string, value: unknown, min: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw invalid(field, min === 1 ? "a positive integer" : `an integer of at least ${min}`, value);
  }
  return value;
}

function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw invalid(field, allowed.map((a) => `"${a}"`).join(" or "), value);
  return value as T;
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

/**
 * Drops `undefined` fields, merges defaults and validates every field up front, throwing a
 * `SchedulerError` with code `INVALID_OPTION` that names the field and the value.
 *
 * @example
 * resolveRedisOptions({ leaseMs: 0 }); // throws "Expected `leaseMs` to be an integer of at least 100, got `0` (number)"
 */
export function resolveRedisOptions(options: RedisStoreOptions = {}): ResolvedRedisOptions {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw invalid("options", "an object", options);
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw invalid(key, `a known option (${[...KNOWN].join(", ")})`, key);
  }
  const given = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as RedisStoreOptions;
  if (given.url !== undefined && given.client !== undefined) {
    throw invalid("url", "left out when `client` is given", given.url);
  }
  if (given.url !== undefined && (typeof given.url !== "string" || !/^rediss?:\/\//.test(given.url))) {
    throw invalid("url", "a redis:// or rediss:// URL", given.url);
  }
  if (given.client !== undefined && !isClient(given.client)) {
    throw invalid("client", "an ioredis client", given.client);
  }
  const prefix = given.prefix ?? "llm:";
  if (typeof prefix !== "string" || prefix.length === 0 || prefix.length > 128) {
    throw invalid("prefix", "a non-empty string of at most 128 characters", prefix);
  }
  const onStoreError = oneOf("onStoreError", given.onStoreError ?? "fail-closed", ["fail-closed", "local"]);
  if (onStoreError === "local" && given.expectedInstances === undefined) {
    throw invalid("expectedInstances", 'a positive integer when `onStoreError` is "local"', undefined);
  }
  const instanceId = given.instanceId ?? randomBytes(8).toString("hex");
  if (typeof instanceId !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(instanceId)) {
    throw invalid("instanceId", "1 to 64 letters, digits, `-` or `_`", instanceId);
  }
  if (given.onError !== undefined && typeof given.onError !== "function") {
    throw invalid("onError", "a function", given.onError);
  }
  return {
    url: given.url ?? (given.client === undefined ? "redis://127.0.0.1:6379" : undefined),
    client: given.client,
    prefix,
    leaseMs: integerAtLeast("leaseMs", given.leaseMs ?? 10_000, 100),
    pollMs: integerAtLeast("pollMs", given.pollMs ?? 1_000, 10),
    onStoreError,
    expectedInstances: integerAtLeast("expectedInstances", given.expectedInstances ?? 1, 1),
    localMaxQueue: integerAtLeast("localMaxQueue", given.localMaxQueue ?? 1_000, 1),
    agingClock: oneOf("agingClock", given.agingClock ?? "redis", ["redis", "scheduler"]),
    commandTimeoutMs: integerAtLeast("commandTimeoutMs", given.commandTimeoutMs ?? 2_000, 1),
    instanceId,
    onError: given.onError ?? (() => {}),
  };
}

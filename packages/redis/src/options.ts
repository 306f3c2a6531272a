import { randomBytes } from "node:crypto";
import {
  custom,
  func,
  guarded,
  type InferShape,
  instanceIdNode,
  integer,
  invalidOption,
  oneOf,
  resolveShape,
  string,
} from "@llm-scheduler/core/kit";
import type { Cluster, Redis } from "ioredis";
import {
  checkCluster,
  checkConnection,
  clientNode,
  isCluster,
  keyPrefix,
  urlNode,
} from "./connection-options.js";

/**
 * An ioredis client (standalone, Sentinel or Cluster), with either reply mapping; the store only runs
 * scripts and pub/sub on it.
 */
export type RedisClient = Redis | Redis<"resp3"> | Cluster | Cluster<"resp3">;

/** What the store does while Redis cannot be reached. */
export type OnStoreError = NonNullable<RedisStoreOptions["onStoreError"]>;

/** Whose clock measures how long a ticket has waited (for each priority's `maxWaitMs` aging bound). */
export type AgingClock = NonNullable<RedisStoreOptions["agingClock"]>;

/** Where the store stands: talking to Redis, running on the local fallback, or neither. */
export type RedisStoreStatus = "connecting" | "connected" | "local" | "unavailable" | "closed";

/** Everything `new RedisStore()` accepts, declared once: checks, types and the README table come from here. */
export const REDIS_STORE = {
  url: urlNode({
    shownDefault: "`redis://127.0.0.1:6379`",
    doc: "where Redis listens; the store opens (and `close()` ends) its own connections",
  }),
  client: clientNode<RedisClient>({
    range: "an ioredis `Redis` or `Cluster`",
    doc: "a client to reuse, with its TLS / Sentinel / auth settings; the store opens one `duplicate()` for its subscription, and `close()` leaves the client open",
  }),
  cluster: custom<readonly string[]>({
    check: checkCluster,
    range: "1 to 64 redis:// or rediss:// URLs",
    json: { type: "array", minItems: 1, maxItems: 64, items: { type: "string", pattern: "^rediss?://" } },
    doc: "Redis Cluster: node URLs; the store opens an ioredis `Cluster` on them. Give one of `url`, `client`, `cluster`",
  }),
  prefix: string(128, {
    default: "llm:",
    doc: 'of every key and channel; instances that share it share one scheduler. On a cluster, one without a hash tag is wrapped in one (`"llm:"` becomes `"{llm:}"`)',
  }),
  leaseMs: integer(100, 3_600_000, {
    default: 10_000,
    doc: "lease of a slot and heartbeat of an instance: a crashed instance's slots come back, and its queued tickets are purged, within about this long",
  }),
  pollMs: integer(10, 3_600_000, {
    default: 1_000,
    doc: "caps the heartbeat interval, `min(pollMs, leaseMs / 3)`: the safety poll under pub/sub, and the pace of reconnection attempts",
  }),
  onStoreError: oneOf(["fail-closed", "local"], {
    default: "fail-closed",
    doc: 'while Redis is unreachable: `"fail-closed"` rejects tasks with `STORE_UNAVAILABLE` (adapters answer 503); `"local"` runs them under a local limit',
  }),
  expectedInstances: integer(1, 10_000, {
    shownDefault: 'required with `"local"`',
    doc: "how many instances normally share the limit: the local limit is `maxConcurrency / expectedInstances`",
  }),
  localMaxQueue: integer(1, 10_000_000, {
    default: 1_000,
    doc: 'with `"local"`: at most this many tasks wait locally (and never more than the priorities\' `maxQueue`)',
  }),
  agingClock: oneOf(["redis", "scheduler"], {
    default: "redis",
    doc: "whose clock measures waiting time for `maxWaitMs` (see Clocks); leases always use Redis's",
  }),
  commandTimeoutMs: integer(1, 600_000, {
    default: 2_000,
    doc: "a script call without a reply in this long fails, and Redis counts as down",
  }),
  instanceId: instanceIdNode({
    shownDefault: "16 random hex digits",
    doc: "this instance's id in Redis; unique among live instances",
  }),
  onError: func<(error: unknown) => void>({
    doc: "errors handled in the background (connection lost, reconciliation), for logging; what it throws is ignored",
  }),
  onStatusChange: func<(status: RedisStoreStatus, previous: RedisStoreStatus) => void>({
    doc: '`(status, previous) => void`, once per change of `store.status` (e.g. `"local"` when the fallback takes over); what it throws goes to `onError`',
  }),
};

/** Everything `new RedisStore()` accepts. Every field is optional. */
export type RedisStoreOptions = InferShape<typeof REDIS_STORE>;

/** The options after defaults and validation. */
export type ResolvedRedisOptions = ReturnType<typeof resolveRedisOptions>;

/**
 * Drops `undefined` fields, merges defaults and validates every field up front, throwing a
 * `SchedulerError` with code `INVALID_OPTION` that names the field and the value.
 *
 * @example
 * resolveRedisOptions({ leaseMs: 0 }); // throws "Expected `leaseMs` to be an integer from 100 to 3600000, got `0` (number)"
 */
export function resolveRedisOptions(options: RedisStoreOptions = {}) {
  const url = checkConnection(options);
  const given = resolveShape(REDIS_STORE, options);
  if (given.onStoreError === "local" && given.expectedInstances === undefined) {
    throw invalidOption("expectedInstances", 'a positive integer when `onStoreError` is "local"', undefined);
  }
  // what `onError` throws is dropped (there is nobody left to tell); what `onStatusChange` throws goes to it
  const onError = guarded(given.onError);
  return {
    ...given,
    url,
    prefix: keyPrefix(given.prefix, given.cluster !== undefined || isCluster(given.client)),
    expectedInstances: given.expectedInstances ?? 1,
    instanceId: given.instanceId ?? randomBytes(8).toString("hex"),
    onError,
    onStatusChange: guarded(given.onStatusChange, onError),
  };
}

import { type InferShape, integer, resolveShape, string } from "@llm-scheduler/core/kit";
import type { Redis } from "ioredis";
import { checkConnection, clientNode, urlNode } from "../connection-options.js";

/** An ioredis client of one Redis server (the batch store does not run on Redis Cluster yet). */
export type BatchRedisClient = Redis | Redis<"resp3">;

/** Options of `redisBatchStore()`, declared once: checks, types and the README table come from here. */
export const REDIS_BATCH_STORE = {
  url: urlNode({
    shownDefault: '`"redis://127.0.0.1:6379"` without `client`',
    doc: "where Redis listens; the store owns this connection and `close()` ends it. Give `url` or `client`, not both",
  }),
  client: clientNode<BatchRedisClient>({
    range: "an ioredis client",
    doc: "an ioredis client to reuse (left open by `close()`); one server, not a `Cluster`",
  }),
  prefix: string(128, {
    default: "llm:",
    doc: "prefix of every key (batches under `<prefix>b:`): instances sharing it share the batches",
  }),
  resultTtlMs: integer(1_000, 31_536_000_000, {
    default: 604_800_000,
    shownDefault: "7 days",
    doc: "how long a finished batch (its status, items and results) is kept",
  }),
  fileTtlMs: integer(1_000, 31_536_000_000, {
    default: 2_592_000_000,
    shownDefault: "30 days",
    doc: "the longest an input file is kept, whatever expiry the batch layer's `fileTtlMs` or the upload gave it",
  }),
  commandTimeoutMs: integer(1, 600_000, {
    default: 5_000,
    doc: "a command with no reply in this long fails (the batch layer tries again on its next heartbeat)",
  }),
};

/** Options of {@link redisBatchStore}. */
export type RedisBatchStoreOptions = InferShape<typeof REDIS_BATCH_STORE>;

/** The options after defaults and validation: `url` is set unless a `client` is given. */
export type ResolvedBatchStoreOptions = ReturnType<typeof resolveBatchStoreOptions>;

/**
 * Validates every option up front (`INVALID_OPTION` naming the field) and fills in the defaults.
 *
 * @example
 * resolveBatchStoreOptions({ url: "redis://127.0.0.1:6379", prefix: "llm:" });
 */
export function resolveBatchStoreOptions(options: RedisBatchStoreOptions = {}) {
  const url = checkConnection(options);
  return { ...resolveShape(REDIS_BATCH_STORE, options), url };
}

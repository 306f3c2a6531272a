import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { Redis } from "ioredis";

/** An ioredis client of one Redis server (the batch store does not run on Redis Cluster yet). */
export type BatchRedisClient = Redis | Redis<"resp3">;

/** Options of {@link redisBatchStore}. */
export interface RedisBatchStoreOptions {
  /**
   * Where Redis listens (`redis://` or `rediss://`); the store then owns its connection and `close()`
   * ends it. Give either `url` or `client`.
   * @default "redis://127.0.0.1:6379"
   */
  readonly url?: string;
  /** An ioredis client to reuse (left open by `close()`); a single server, not a `Cluster`. */
  readonly client?: BatchRedisClient;
  /**
   * Prefix of every key (the batch keys live under `<prefix>b:`). Instances sharing a prefix share the
   * batches. (The batch store runs on one Redis server; Redis Cluster is not supported for it yet.)
   * @default "llm:"
   */
  readonly prefix?: string;
  /**
   * How long a finished batch (its status, items and results) is kept, in ms.
   * @default 604_800_000 (7 days)
   */
  readonly resultTtlMs?: number;
  /**
   * The longest an uploaded input file is kept, in ms, whatever expiry it was given (the batch layer's
   * `fileTtlMs` and the upload's `expires_after` set it; this cuts it).
   * @default 2_592_000_000 (30 days)
   */
  readonly fileTtlMs?: number;
  /**
   * A command with no reply in this long fails (the batch layer tries again on its next heartbeat).
   * @default 5_000
   */
  readonly commandTimeoutMs?: number;
}

/** The options after defaults and validation. */
export interface ResolvedBatchStoreOptions {
  readonly url: string | undefined;
  readonly client: BatchRedisClient | undefined;
  readonly prefix: string;
  readonly resultTtlMs: number;
  readonly fileTtlMs: number;
  readonly commandTimeoutMs: number;
}

const KNOWN = ["url", "client", "prefix", "resultTtlMs", "fileTtlMs", "commandTimeoutMs"];

/**
 * Validates every option up front (`INVALID_OPTION` naming the field) and fills in the defaults.
 *
 * @example
 * resolveBatchStoreOptions({ url: "redis://127.0.0.1:6379", prefix: "llm:" });
 */
export function resolveBatchStoreOptions(options: RedisBatchStoreOptions = {}): ResolvedBatchStoreOptions {
  if (options === null || typeof options !== "object") throw invalidOption("options", "an object", options);
  rejectUnknownKeys("", options, KNOWN);
  if (options.url !== undefined && options.client !== undefined) {
    throw invalidOption("url", "left out when `client` is given", options.url);
  }
  if (options.url !== undefined && (typeof options.url !== "string" || !/^rediss?:\/\//.test(options.url))) {
    throw invalidOption("url", "a redis:// or rediss:// URL", options.url);
  }
  if (
    options.client !== undefined &&
    typeof (options.client as { evalsha?: unknown }).evalsha !== "function"
  ) {
    throw invalidOption("client", "an ioredis client", options.client);
  }
  const prefix = options.prefix ?? "llm:";
  if (typeof prefix !== "string" || prefix.length === 0 || prefix.length > 128) {
    throw invalidOption("prefix", "a non-empty string of at most 128 characters", prefix);
  }
  return {
    url: options.url ?? (options.client === undefined ? "redis://127.0.0.1:6379" : undefined),
    client: options.client,
    prefix,
    resultTtlMs: integerIn("resultTtlMs", options.resultTtlMs, 1_000, 31_536_000_000, 604_800_000),
    fileTtlMs: integerIn("fileTtlMs", options.fileTtlMs, 1_000, 31_536_000_000, 2_592_000_000),
    commandTimeoutMs: integerIn("commandTimeoutMs", options.commandTimeoutMs, 1, 600_000, 5_000),
  };
}

import type { BatchStore } from "@llm-scheduler/batches";
import {
  type RedisReplicaLedger,
  RedisStore,
  redisBatchStore,
  redisReplicaLedger,
} from "@llm-scheduler/redis";
import { Redis } from "ioredis";
import type { ResolvedConfig } from "../config/resolve.js";
import type { GatewayOptions } from "../gateway.js";

/**
 * The Redis stores the configuration asks for (`redis.url`): each model's scheduler store, its pool's
 * replica ledger (one client for every ledger), the batch store; and how to close them.
 */
export function storesOf(
  config: ResolvedConfig,
): Pick<GatewayOptions, "storeFor" | "batchStore" | "ledgerFor"> & { close(): Promise<void> } {
  const { redis } = config;
  if (redis === undefined) return { close: async () => undefined };
  const opened: Array<{ close(): Promise<void> }> = [];
  const storeFor = (model: string) => {
    const store = new RedisStore({ url: redis.url, prefix: `${redis.prefix}:model:${model}:` });
    opened.push(store);
    return store;
  };
  let client: Redis | undefined;
  const ledgers = new Map<string, RedisReplicaLedger>();
  const ledgerFor = (model: string) => {
    let ledger = ledgers.get(model);
    if (ledger === undefined) {
      client ??= new Redis(redis.url, { maxRetriesPerRequest: 1 });
      ledger = redisReplicaLedger(client, { prefix: redis.prefix, pool: `model:${model}` });
      ledgers.set(model, ledger);
    }
    return ledger;
  };
  let batchStore: BatchStore | undefined;
  if (config.batches.store === "redis") {
    const store = redisBatchStore({ url: redis.url, prefix: `${redis.prefix}:batches:` });
    opened.push(store);
    batchStore = store;
  }
  return {
    storeFor,
    ledgerFor,
    ...(batchStore === undefined ? {} : { batchStore }),
    close: async () => {
      await Promise.all(opened.map((s) => s.close().catch(() => undefined)));
      for (const ledger of ledgers.values()) ledger.close();
      await client?.quit().catch(() => undefined);
    },
  };
}

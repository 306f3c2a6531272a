import type { BatchStore } from "@llm-scheduler/batches";
import { RedisStore, redisBatchStore } from "@llm-scheduler/redis";
import type { ResolvedConfig } from "../config/resolve.js";
import type { GatewayOptions } from "../gateway.js";

/** The Redis stores the configuration asks for (`redis.url`), and how to close them. */
export function storesOf(
  config: ResolvedConfig,
): Pick<GatewayOptions, "storeFor" | "batchStore"> & { close(): Promise<void> } {
  const { redis } = config;
  if (redis === undefined) return { close: async () => undefined };
  const opened: Array<{ close(): Promise<void> }> = [];
  const storeFor = (model: string) => {
    const store = new RedisStore({ url: redis.url, prefix: `${redis.prefix}:model:${model}:` });
    opened.push(store);
    return store;
  };
  let batchStore: BatchStore | undefined;
  if (config.batches.store === "redis") {
    const store = redisBatchStore({ url: redis.url, prefix: `${redis.prefix}:batches:` });
    opened.push(store);
    batchStore = store;
  }
  return {
    storeFor,
    ...(batchStore === undefined ? {} : { batchStore }),
    close: async () => {
      await Promise.all(opened.map((s) => s.close().catch(() => undefined)));
    },
  };
}

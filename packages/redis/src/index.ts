export { batchKeys } from "./batches/keys.js";
export {
  type RedisBatchStoreOptions,
  type ResolvedBatchStoreOptions,
  resolveBatchStoreOptions,
} from "./batches/options.js";
export { RedisBatchStore, redisBatchStore } from "./batches/redis-batch-store.js";
export { fixedKeys, grantChannel, inboxKey, type Keys, keyList, ticketId } from "./keys.js";
export {
  type AgingClock,
  type OnStoreError,
  type RedisClient,
  type RedisStoreOptions,
  type ResolvedRedisOptions,
  resolveRedisOptions,
} from "./options.js";
export { RedisStore, type RedisStoreStatus } from "./redis-store.js";
export { type ScriptName, scriptSource } from "./scripts.js";

export {
  REDIS_BATCH_STORE as REDIS_BATCH_STORE_SCHEMA,
  type RedisBatchStoreOptions,
  type ResolvedBatchStoreOptions,
} from "./batches/options.js";
export { RedisBatchStore, redisBatchStore } from "./batches/redis-batch-store.js";
export {
  type AgingClock,
  type OnStoreError,
  REDIS_STORE as REDIS_STORE_SCHEMA,
  type RedisClient,
  type RedisStoreOptions,
  type ResolvedRedisOptions,
} from "./options.js";
export { RedisStore, type RedisStoreStatus } from "./redis-store.js";
export {
  type RedisReplicaLedger,
  type ReplicaLedgerOptions,
  redisReplicaLedger,
} from "./replica-ledger.js";

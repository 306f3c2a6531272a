export type {
  AgingClock,
  OnStoreError,
  RedisClient,
  RedisStoreOptions,
  ResolvedRedisOptions,
} from "./options.js";
export { RedisStore, type RedisStoreStatus } from "./redis-store.js";

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

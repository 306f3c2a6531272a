export { checkPoolOptions } from "./check-options.js";
export { type EngineLoadOptions, engineLoad, resolveEngineLoad } from "./engine-load.js";
export { parseEngineMetrics } from "./engine-metrics.js";
export { PoolError, PoolErrorCode } from "./errors.js";
export { localReplicaLedger, type ReplicaLedger } from "./ledger.js";
export type {
  HealthOptions,
  PoolOptions,
  PoolSchedulerOptions,
  ReplicaOptions,
  SignalsOptions,
} from "./options.js";
export type { ReplayableBody } from "./outgoing.js";
export {
  createPool,
  type HealthChange,
  Pool,
  type PoolFetchInit,
  type PoolForwardInit,
  type PoolMetrics,
} from "./pool.js";
export type { ReplicaMetrics } from "./replica.js";
export type { EngineSignals, ReplicaState } from "./replica-state.js";
export { type BatchHoldOptions, batchHold } from "./routing/batch-hold.js";
export { createRouter, ROUTINGS, type Routing } from "./routing/create-router.js";
export { FNV1A_START, fnv1aUpdate, hashString, mix32 } from "./routing/hash.js";
export { type LeastLoadedOptions, leastLoaded } from "./routing/least-loaded.js";
export { type PrefixOptions, prefixAffinity } from "./routing/prefix.js";
export { HashRing } from "./routing/ring.js";
export { roundRobin } from "./routing/round-robin.js";
export {
  candidates,
  capacityOf,
  engineQueued,
  hasRoom,
  loadOf,
  type RandomSource,
  type ReplicaFilter,
  type Router,
} from "./routing/router.js";
export {
  createRoutingKey,
  type HeaderSource,
  type RoutingKeyFunction,
  type RoutingKeyOptions,
} from "./routing/routing-key.js";
export {
  HEALTH_SCHEMA,
  POOL_SCHEMA,
  REPLICA_SCHEMA,
  ROUTING_KEY_SCHEMA,
  SIGNALS_SCHEMA,
} from "./schema.js";
export type { SharedOptions } from "./shared-options.js";
export { relativeSpeeds, resolveSpeed, SpeedMeter, type SpeedOptions } from "./speed.js";

export { parseEngineMetrics } from "./engine-metrics.js";
export { PoolError, PoolErrorCode } from "./errors.js";
export type { HealthOptions, PoolOptions, ReplicaOptions, SignalsOptions } from "./options.js";
export type { ReplayableBody } from "./outgoing.js";
export { createPool, type HealthChange, Pool, type PoolFetchInit, type PoolMetrics } from "./pool.js";
export type { ReplicaMetrics } from "./replica.js";
export type { EngineSignals, ReplicaState } from "./replica-state.js";
export { fewestInFlight, type Router } from "./router.js";

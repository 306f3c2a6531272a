/**
 * What the engine behind a replica says about itself (scraped from its Prometheus endpoint:
 * `vllm:num_requests_waiting`, `vllm:num_requests_running`, `vllm:kv_cache_usage_perc`).
 */
export interface EngineSignals {
  /** Requests queued inside the engine, not yet in its running batch. */
  readonly waiting: number;
  /** Requests in the engine's running batch. */
  readonly running: number;
  /** KV cache in use, 0..1; `undefined` when the engine does not say. */
  readonly kvCacheUsage: number | undefined;
}

/**
 * One replica as a router sees it: a plain, read-only snapshot. Routers pick among the replicas whose
 * `healthy` is true and whose `inFlight` is below `limit`; they never change it.
 *
 * @example
 * const state: ReplicaState = { id: "r0", limit: 8, inFlight: 3, healthy: true };
 */
export interface ReplicaState {
  /** Stable id of the replica within its pool. */
  readonly id: string;
  /** How many requests this replica may have in flight now (fixed, or its adaptive limit). */
  readonly limit: number;
  /** Requests in flight on the replica now. */
  readonly inFlight: number;
  /** False while the replica is ejected. */
  readonly healthy: boolean;
  /** The latest engine signals, or `undefined` when none were scraped. */
  readonly engine?: EngineSignals | undefined;
}

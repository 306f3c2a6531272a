/**
 * What the engine behind a replica says about itself, scraped from its Prometheus endpoint
 * (vLLM, SGLang or TGI names, see the README). `undefined` fields were not exposed by the engine.
 */
export interface EngineSignals {
  /** Requests queued inside the engine, not yet in its batch (`vllm:num_requests_waiting`). */
  readonly waiting: number;
  /** Requests in the engine's running batch (`vllm:num_requests_running`). */
  readonly running: number;
  /** KV cache in use, 0..1 (`vllm:kv_cache_usage_perc`); `undefined` when the engine does not say. */
  readonly kvCacheUsage: number | undefined;
}

/**
 * One replica as a router sees it: a plain, read-only snapshot. Routers pick among the replicas whose
 * `healthy` is true and whose `inFlight` is below `limit`; they never change the state.
 *
 * @example
 * const state: ReplicaState = {
 *   id: "r0", url: "http://10.0.0.1:8000", limit: 8, inFlight: 3, healthy: true, engine: undefined,
 * };
 */
export interface ReplicaState {
  /** Stable id of the replica within its pool (the configured `id`, or `r<index>`). */
  readonly id: string;
  /** Base URL of the replica, e.g. `http://10.0.0.1:8000`. */
  readonly url?: string;
  /** How many requests this replica may have in flight now (fixed, or its adaptive limit). */
  readonly limit: number;
  /**
   * Requests in flight on the replica now: in a router's view, over every instance when the pool shares a
   * ledger (Redis); in `pool.metrics()`, this instance's.
   */
  readonly inFlight: number;
  /** False while the replica is ejected (failed health checks or too many consecutive errors). */
  readonly healthy: boolean;
  /** The latest engine signals, or `undefined` when none were scraped (or they went stale). */
  readonly engine?: EngineSignals | undefined;
  /**
   * How fast the replica streams against the fleet's median, in (0, 1] (see `relativeSpeeds`);
   * `undefined` (no estimate yet, or speed estimates off) counts as 1.
   */
  readonly speed?: number | undefined;
}

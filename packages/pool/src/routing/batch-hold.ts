import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { ReplicaState } from "../replica-state.js";
import type { ReplicaFilter } from "./router.js";

/** Options of {@link batchHold}. */
export interface BatchHoldOptions {
  /** Requests in the engine's own queue above which a replica takes no batch work, 0 to 1,000,000. @default 0 */
  readonly maxWaiting?: number;
  /** KV cache usage (0..1) above which a replica takes no batch work. @default 0.9 */
  readonly maxKvCacheUsage?: number;
}

/**
 * A filter for batch requests: a replica whose engine queues more than `maxWaiting` requests, or whose
 * KV cache is fuller than `maxKvCacheUsage`, takes no batch work, so interactive work finds room there.
 * Replicas without engine signals are never held. Pass it as `accept` to a router's `pick()` for batch
 * requests only (the pool does so for the priorities in `signals.holdBack`).
 *
 * @example
 * const forBatch = batchHold({ maxKvCacheUsage: 0.85 });
 * router.pick(replicas, key, priority === "batch" ? forBatch : undefined);
 */
export function batchHold(options: BatchHoldOptions = {}): ReplicaFilter {
  rejectUnknownKeys("", options, ["maxWaiting", "maxKvCacheUsage"]);
  const maxWaiting = integerIn("maxWaiting", options.maxWaiting, 0, 1_000_000, 0);
  const limit = options.maxKvCacheUsage ?? 0.9;
  if (typeof limit !== "number" || !(limit >= 0 && limit <= 1)) {
    throw invalidOption("maxKvCacheUsage", "a number from 0 to 1", limit);
  }
  return function acceptsBatch(replica: ReplicaState): boolean {
    const engine = replica.engine;
    if (engine === undefined) return true;
    return !(
      engine.waiting > maxWaiting ||
      (engine.kvCacheUsage !== undefined && engine.kvCacheUsage > limit)
    );
  };
}

import type { ReplicaState } from "./replica-state.js";

/**
 * Chooses where a request goes: given every replica of the pool (those it may not use now have
 * `healthy: false`) and the request's routing key, the id of a healthy replica with room
 * (`inFlight < limit`), or `null` when none fits. Pure: it never changes the states.
 *
 * @example
 * const first: Router = (replicas) => replicas.find((r) => r.healthy && r.inFlight < r.limit)?.id ?? null;
 */
export type Router = (replicas: readonly ReplicaState[], routingKey: string | undefined) => string | null;

/** True when a router may send a request to `replica` now. */
export function hasRoom(replica: ReplicaState): boolean {
  return replica.healthy && replica.inFlight < replica.limit;
}

/**
 * The fallback router: the replica with the lowest share of its limit in flight (ties: the first).
 * The pool also uses it when a router names a replica that has no room.
 *
 * @example
 * createPool({ replicas, routing: fewestInFlight });
 */
export const fewestInFlight: Router = (replicas) => {
  let best: ReplicaState | undefined;
  for (const replica of replicas) {
    if (!hasRoom(replica)) continue;
    if (best === undefined || replica.inFlight / replica.limit < best.inFlight / best.limit) best = replica;
  }
  return best?.id ?? null;
};

import type { ReplicaState } from "../replica-state.js";

/** A source of numbers in `[0, 1)`; `Math.random` by default, a seeded one in tests and simulations. */
export type RandomSource = () => number;

/** Which replicas a request may go to besides having room, e.g. {@link batchHold} for batch work. */
export type ReplicaFilter = (replica: ReplicaState) => boolean;

/**
 * Decides where a request goes, once the scheduler has decided that it goes now. Pure: it reads the
 * replicas' states and never changes them (the caller counts the request in flight on the replica it
 * got). Never picks an unhealthy replica or one at its limit.
 *
 * @example
 * const id = router.pick(pool.replicas(), routingKey(body, headers));
 * if (id === null) throw new Error("no replica has room");
 */
export interface Router {
  /**
   * The id of the replica for a request with routing key `key` (`undefined`: no affinity), or `null`
   * when no healthy replica has room (and passes `accept`, when given).
   */
  pick(replicas: readonly ReplicaState[], key: string | undefined, accept?: ReplicaFilter): string | null;
}

/**
 * True when the replica is healthy and below its limit.
 *
 * @example
 * hasRoom({ id: "r0", limit: 8, inFlight: 8, healthy: true }); // false
 */
export function hasRoom(replica: ReplicaState): boolean {
  return replica.healthy && replica.inFlight < replica.limit;
}

/** True when the engine behind the replica reports requests waiting in its own queue. */
export function engineQueued(replica: ReplicaState): boolean {
  return (replica.engine?.waiting ?? 0) > 0;
}

/** The share of its limit a replica has in flight (1 when its limit is 0). */
export function loadOf(replica: ReplicaState): number {
  return replica.limit > 0 ? replica.inFlight / replica.limit : 1;
}

/**
 * What a replica can serve, in slots of a full-speed replica: its limit weighed by its relative
 * `speed` (1 when unknown). Load bounds use it; room is still its plain limit.
 *
 * @example
 * capacityOf({ id: "r0", limit: 24, inFlight: 0, healthy: true, speed: 0.5 }); // 12
 */
export function capacityOf(replica: ReplicaState): number {
  return replica.limit * (replica.speed ?? 1);
}

/** The replicas a request may go to at all: healthy, with room, accepted by `accept`, in input order. */
export function openReplicas(replicas: readonly ReplicaState[], accept?: ReplicaFilter): ReplicaState[] {
  return replicas.filter((replica) => hasRoom(replica) && (accept === undefined || accept(replica)));
}

/**
 * The {@link openReplicas} a load-based router chooses among: when some of them have no engine queue,
 * only those (a replica whose engine already queues work would make the request wait inside it, where
 * no priority applies). Keeps the input order.
 */
export function candidates(replicas: readonly ReplicaState[], accept?: ReplicaFilter): ReplicaState[] {
  const open = openReplicas(replicas, accept);
  const unqueued = open.filter((replica) => !engineQueued(replica));
  return unqueued.length === 0 ? open : unqueued;
}

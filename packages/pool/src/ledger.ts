/**
 * The live leases of a pool's replicas over every instance, as the ledger last saw them. `seq` grows
 * with every change the ledger makes, so of two snapshots the one with the higher `seq` is newer.
 */
export interface LedgerSnapshot {
  readonly seq: number;
  /** Live leases per replica id (only the ids the ledger was asked to report). */
  readonly counts: Readonly<Record<string, number>>;
}

/**
 * Where the slots of every replica are counted. A pool alone counts them in its own replicas' limiters;
 * with a shared ledger (`redisReplicaLedger` of `@llm-scheduler/redis`) every gateway instance of the
 * pool also takes a lease on the replica before sending, so N instances never put more than a
 * replica's limit on it, its routers see every instance's requests, and one instance's ejection of a
 * replica is seen by the others.
 */
export interface ReplicaLedger {
  /**
   * A lease on one of `limit` slots of the replica, or `null` when every slot is leased (by anyone).
   * The pool passes `Number.MAX_SAFE_INTEGER` to count a request that is already in flight (sent
   * while the ledger could not be reached).
   */
  take(replicaId: string, limit: number): Promise<string | null>;
  /** Gives a lease back; a lease already given back or expired is ignored. */
  release(leaseId: string): Promise<void>;
  /** Extends every live lease of this instance (a heartbeat; a dead instance's leases expire). */
  renew(): Promise<void>;
  /** Live leases per replica id, over every instance. */
  counts(replicaIds: readonly string[]): Promise<Record<string, number>>;
  /** Tells every instance that the replica is ejected for the next `ms` milliseconds. */
  eject(replicaId: string, ms: number): Promise<void>;
  /** The replicas ejected now, each with the milliseconds its ejection has left. */
  ejections(): Promise<Record<string, number>>;
  /**
   * Calls `listener` with the counts of `replicaIds` each time the ledger learns them (its takes,
   * releases and renewals, and other instances' takes and releases), and with `undefined` when it
   * lost its store (the counts it gave may be wrong until the next snapshot). Returns the function
   * that stops it.
   */
  watch(replicaIds: readonly string[], listener: (snapshot: LedgerSnapshot | undefined) => void): () => void;
}

/**
 * A ledger for one process: the same counts as the replicas' own limiters, kept here. It is what a
 * pool without a shared ledger does, as a `ReplicaLedger` (for tests and simulations of the shared
 * path, e.g. two pools on one ledger); `now` gives the time ejections are measured on.
 *
 * @example
 * const ledger = localReplicaLedger();
 * const pool = createPool({ replicas, shared: { ledger } });
 */
export function localReplicaLedger(now: () => number = () => Date.now()): ReplicaLedger {
  const leases = new Map<string, string>();
  const ejected = new Map<string, number>();
  const watchers = new Map<(snapshot: LedgerSnapshot | undefined) => void, readonly string[]>();
  let next = 0;
  let seq = 0;
  const count = (replicaId: string): number => {
    let n = 0;
    for (const owner of leases.values()) if (owner === replicaId) n += 1;
    return n;
  };
  const tell = (): void => {
    seq += 1;
    for (const [listener, ids] of watchers) {
      listener({ seq, counts: Object.fromEntries(ids.map((id) => [id, count(id)])) });
    }
  };
  return {
    take(replicaId, limit) {
      if (count(replicaId) >= limit) return Promise.resolve(null);
      const id = `local:${next++}`;
      leases.set(id, replicaId);
      tell();
      return Promise.resolve(id);
    },
    release(leaseId) {
      if (leases.delete(leaseId)) tell();
      return Promise.resolve();
    },
    renew() {
      tell();
      return Promise.resolve();
    },
    counts(replicaIds) {
      return Promise.resolve(Object.fromEntries(replicaIds.map((id) => [id, count(id)])));
    },
    eject(replicaId, ms) {
      const until = now() + ms;
      ejected.set(replicaId, Math.max(until, ejected.get(replicaId) ?? 0));
      return Promise.resolve();
    },
    ejections() {
      const at = now();
      const left: Record<string, number> = {};
      for (const [id, until] of ejected) if (until > at) left[id] = until - at;
      return Promise.resolve(left);
    },
    watch(replicaIds, listener) {
      watchers.set(listener, [...replicaIds]);
      return () => {
        watchers.delete(listener);
      };
    },
  };
}

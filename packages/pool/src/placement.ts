import type { Permit } from "@llm-scheduler/core";
import { PoolError, PoolErrorCode } from "./errors.js";
import type { ResolvedSignals } from "./options.js";
import type { Replica } from "./replica.js";
import type { ReplicaState } from "./replica-state.js";
import { batchHold } from "./routing/batch-hold.js";
import { loadOf, openReplicas, type ReplicaFilter, type Router } from "./routing/router.js";
import { relativeSpeeds } from "./speed.js";

/** What placing one attempt of a request needs to know. */
export interface Want {
  readonly priority: string;
  readonly tenant: string | undefined;
  readonly routingKey: string | undefined;
  /** Replicas this request already failed on: never again. */
  readonly tried: ReadonlySet<string>;
}

/** A replica and the slot taken on it. */
export interface Placed {
  readonly replica: Replica;
  readonly slot: Permit;
}

interface Waiter {
  readonly want: Want;
  readonly resolve: (placed: Placed) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Decides where a request that holds a pool slot goes, and holds it (in arrival order) until a replica
 * has room: the pool's scheduler already decided who goes; this only waits for the replica the router
 * picks. `wake()` is called whenever a replica slot frees, a limit moves, health or signals change.
 */
export class Placement {
  readonly #replicas: readonly Replica[];
  readonly #router: Router;
  readonly #signals: ResolvedSignals | undefined;
  /** The batch-hold filter for the priorities in `signals.holdBack`. */
  readonly #hold: ReplicaFilter | undefined;
  readonly #now: () => number;
  /** The lowest relative speed (`speed.minFactor`); `undefined` with `speed: false`. */
  readonly #minSpeed: number | undefined;
  readonly #waiters = new Set<Waiter>();

  constructor(
    replicas: readonly Replica[],
    router: Router,
    signals: ResolvedSignals | undefined,
    now: () => number,
    minSpeed?: number,
  ) {
    this.#minSpeed = minSpeed;
    this.#replicas = replicas;
    this.#router = router;
    this.#signals = signals;
    this.#hold =
      signals === undefined
        ? undefined
        : batchHold({ maxWaiting: signals.maxWaiting, maxKvCacheUsage: signals.maxKvCacheUsage });
    this.#now = now;
  }

  /** Waiting for a replica now. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /**
   * A slot on a replica for `want`: at once when one has room, else when one frees. Rejects with
   * `NO_REPLICA` when no healthy, untried replica is left, and with `signal.reason` when it aborts.
   */
  place(want: Want, signal: AbortSignal): Promise<Placed> {
    signal.throwIfAborted();
    const placed = this.#tryPlace(want);
    if (placed !== undefined) return Promise.resolve(placed);
    return new Promise<Placed>((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiters.delete(waiter);
        reject(signal.reason);
      };
      const waiter: Waiter = {
        want,
        resolve: (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  /** Places the waiters that fit now, in arrival order; fails those with no replica left. */
  wake(): void {
    for (const waiter of this.#waiters) {
      let placed: Placed | undefined;
      try {
        placed = this.#tryPlace(waiter.want);
      } catch (error) {
        this.#waiters.delete(waiter);
        waiter.reject(error);
        continue;
      }
      if (placed === undefined) continue;
      this.#waiters.delete(waiter);
      waiter.resolve(placed);
    }
  }

  /** Rejects every waiter (the pool closes). */
  rejectAll(error: unknown): void {
    for (const waiter of this.#waiters) waiter.reject(error);
    this.#waiters.clear();
  }

  #tryPlace(want: Want): Placed | undefined {
    if (!this.#replicas.some((replica) => replica.healthy && !want.tried.has(replica.id))) {
      throw new PoolError(PoolErrorCode.NO_REPLICA, "No healthy replica is left to try");
    }
    const states = this.#views(want);
    const accept = this.#signals?.holdBack.includes(want.priority) ? this.#hold : undefined;
    // A replica whose own limiter still refuses (a tenant held back there after its 429s) is skipped.
    for (let left = states.length; left > 0; left--) {
      const pickedId = this.#pick(states, want.routingKey, accept);
      if (pickedId === null) return undefined;
      const replica = this.#replicas.find((r) => r.id === pickedId)!;
      const slot = replica.take(want.tenant);
      if (slot !== undefined) return { replica, slot };
      const index = states.findIndex((state) => state.id === pickedId);
      states[index] = { ...states[index]!, healthy: false };
    }
    return undefined;
  }

  /**
   * The router's pick when it names a replica that may take the request; otherwise (it threw, named
   * one without room or turned away by `accept`, or said `null` while one has room) the open replica
   * with the lowest share of its limit in flight, the first on a tie, so a request is never lost.
   */
  #pick(states: readonly ReplicaState[], key: string | undefined, accept: ReplicaFilter | undefined) {
    let id: string | null = null;
    try {
      id = this.#router.pick(states, key, accept);
    } catch {
      // a router that throws must not lose the request: the fallback below places it
    }
    const open = openReplicas(states, accept);
    if (open.some((state) => state.id === id)) return id;
    let best: ReplicaState | undefined;
    for (const state of open) if (best === undefined || loadOf(state) < loadOf(best)) best = state;
    return best?.id ?? null;
  }

  /** Every replica as the router sees it for `want`: ejected ones and ones it failed on show `healthy: false`. */
  #views(want: Want): ReplicaState[] {
    const now = this.#now();
    const staleMs = this.staleMs;
    const minSpeed = this.#minSpeed;
    const speeds =
      minSpeed === undefined
        ? undefined
        : relativeSpeeds(
            this.#replicas.map((replica) => (replica.healthy ? replica.speed?.rate : undefined)),
            minSpeed,
          );
    return this.#replicas.map((replica, index) => {
      const view = replica.view(now, staleMs);
      const state = speeds === undefined ? view : { ...view, speed: speeds[index] };
      return state.healthy && !want.tried.has(state.id) ? state : { ...state, healthy: false };
    });
  }

  /** How old engine signals may be before they no longer count: three scrapes, and at least 3 s. */
  get staleMs(): number {
    return this.#signals === undefined ? 0 : Math.max(this.#signals.intervalMs * 3, 3_000);
  }
}

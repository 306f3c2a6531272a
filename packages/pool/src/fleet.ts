import type { Clock, TimerHandle } from "@llm-scheduler/core";
import type { LedgerSnapshot } from "./ledger.js";
import type { Replica } from "./replica.js";
import type { ResolvedShared } from "./shared-options.js";
import { KeyedTimers } from "./timers.js";

/**
 * This instance's lease for one attempt on a replica. `id` is `undefined` while the ledger has not
 * counted the attempt (it could not be reached when it was sent); `done` once the attempt ended.
 */
export interface Lease {
  readonly replicaId: string;
  id: string | undefined;
  done: boolean;
}

/** A limit no replica reaches: the ledger counts a request already in flight whatever the others hold. */
const COUNT_ANYWAY = Number.MAX_SAFE_INTEGER;

/**
 * What this instance knows of every instance's load, from a shared ledger: the live leases per replica
 * (from the ledger's replies and the other instances' messages, the newest snapshot winning), plus this
 * instance's takes not yet confirmed. Each replica's router view is the larger of that and its own
 * count; while the ledger cannot be reached, only its own. Requests that wait for a slot leased
 * elsewhere are woken when a count drops, and at the latest every `retryMs` (the fallback for lost
 * messages). Attempts sent without a lease are counted in the ledger once it answers again.
 */
export class Fleet {
  readonly #shared: ResolvedShared;
  readonly #replicas: readonly Replica[];
  readonly #wake: () => void;
  readonly #waiting: () => number;
  readonly #clock: Clock;
  readonly #timers: KeyedTimers<"poll">;
  /** Live leases per replica over every instance; empty while they cannot be trusted. */
  readonly #counts = new Map<string, number>();
  #seq = Number.NEGATIVE_INFINITY;
  /** Takes sent and not answered yet, per replica (counted in the view before the ledger counts them). */
  readonly #pending = new Map<string, number>();
  /** Releases sent and not answered yet, per replica (no longer counted in the view). */
  readonly #releasing = new Map<string, number>();
  /** Attempts in flight that the ledger does not count yet. */
  readonly #unleased = new Set<Lease>();
  readonly #registering = new Set<Lease>();
  readonly #changed = new Set<() => void>();
  #stop: (() => void) | undefined;
  #closed = false;

  constructor(
    shared: ResolvedShared,
    replicas: readonly Replica[],
    clock: Clock,
    wake: () => void,
    waiting: () => number,
  ) {
    this.#shared = shared;
    this.#replicas = replicas;
    this.#wake = wake;
    this.#waiting = waiting;
    this.#clock = clock;
    this.#timers = new KeyedTimers(clock);
  }

  start(): void {
    const ids = this.#replicas.map((replica) => replica.id);
    this.#stop = this.#shared.ledger.watch(ids, (snapshot) => this.#apply(snapshot));
    this.#poll();
    this.#refresh();
  }

  /**
   * Stops watching the ledger (the pool closes). Requests still draining see their own counts only, and
   * those waiting for a lease ask again every `retryMs`.
   */
  close(): void {
    this.#closed = true;
    this.#timers.clear();
    this.#stop?.();
    this.#counts.clear();
    this.#push();
    this.#wakeAll();
  }

  /**
   * A lease on `replica`: with an id when granted, `null` when every slot is leased elsewhere, and
   * without an id when the ledger failed or did not answer within `timeoutMs` (the replica's own limit
   * then holds; the attempt is counted in the ledger once it answers).
   */
  async take(replica: Replica): Promise<Lease | null> {
    const lease: Lease = { replicaId: replica.id, id: undefined, done: false };
    let late = false;
    let timer: TimerHandle | undefined;
    this.#addPending(replica.id, 1);
    const taking = this.#shared.ledger.take(replica.id, replica.limit).then(
      (id) => {
        this.#addPending(replica.id, -1);
        if (late) this.#settleLate(lease, id);
        return id;
      },
      (error: unknown) => {
        this.#addPending(replica.id, -1);
        if (late) this.#settleLate(lease, null);
        throw error;
      },
    );
    const timeout = new Promise<"timeout">((resolve) => {
      timer = this.#clock.setTimer(() => {
        late = true;
        resolve("timeout");
      }, this.#shared.timeoutMs);
    });
    try {
      const id = await Promise.race([taking, timeout]);
      if (id === "timeout") {
        this.unreachable();
        return lease;
      }
      if (id === null) return null;
      lease.id = id;
      return lease;
    } catch {
      this.unreachable();
      this.#unleased.add(lease);
      return lease;
    } finally {
      if (timer !== undefined) this.#clock.clearTimer(timer);
    }
  }

  /** The attempt ended: its lease goes back (a lease the ledger cannot take back expires). */
  give(lease: Lease): void {
    lease.done = true;
    this.#unleased.delete(lease);
    if (lease.id === undefined) return;
    add(this.#releasing, lease.replicaId, 1);
    this.#push();
    this.#shared.ledger
      .release(lease.id)
      .catch(() => undefined)
      .finally(() => {
        add(this.#releasing, lease.replicaId, -1);
        this.#push();
      });
  }

  /** Resolves when a count drops (a slot freed somewhere), at the latest after about `retryMs`. */
  changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.#changed.delete(done);
        reject(signal.reason);
      };
      const done = (): void => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      signal.addEventListener("abort", onAbort, { once: true });
      this.#changed.add(done);
      if (this.#closed) {
        this.#clock.setTimer(() => {
          if (this.#changed.delete(done)) done();
        }, this.#shared.retryMs);
      }
    });
  }

  /** The ledger failed: until its next snapshot each replica's router view is this instance's own. */
  unreachable(): void {
    const wasTrusted = this.#counts.size > 0;
    this.#counts.clear();
    this.#seq = Number.NEGATIVE_INFINITY;
    this.#push();
    if (wasTrusted) this.#wakeAll();
  }

  #apply(snapshot: LedgerSnapshot | undefined): void {
    if (snapshot === undefined) {
      this.unreachable();
      return;
    }
    if (this.#counts.size > 0 && snapshot.seq < this.#seq) return; // an older one, overtaken
    let dropped = this.#counts.size === 0;
    for (const replica of this.#replicas) {
      const count = snapshot.counts[replica.id];
      if (typeof count !== "number") continue;
      const before = this.#counts.get(replica.id);
      if (before !== undefined && count < before) dropped = true;
      this.#counts.set(replica.id, count);
    }
    this.#seq = snapshot.seq;
    this.#push();
    this.#register();
    if (dropped) this.#wakeAll();
  }

  /** Hands each replica its fleet-wide count (with this instance's takes and releases in transit), or none. */
  #push(): void {
    for (const replica of this.#replicas) {
      const count = this.#counts.get(replica.id);
      const moving = (this.#pending.get(replica.id) ?? 0) - (this.#releasing.get(replica.id) ?? 0);
      replica.setFleetInFlight(count === undefined ? undefined : Math.max(0, count + moving));
    }
  }

  #addPending(replicaId: string, delta: number): void {
    add(this.#pending, replicaId, delta);
    this.#push();
  }

  /** A take answered after its timeout: keep its lease for the attempt, or count the attempt anyway. */
  #settleLate(lease: Lease, id: string | null): void {
    if (id !== null) this.#attach(lease, id);
    else if (!lease.done && lease.id === undefined) {
      this.#unleased.add(lease);
      if (this.#counts.size > 0) this.#register();
    }
  }

  #attach(lease: Lease, id: string): void {
    this.#unleased.delete(lease);
    if (lease.done || lease.id !== undefined) this.#shared.ledger.release(id).catch(() => undefined);
    else lease.id = id;
  }

  /** Counts in the ledger the attempts in flight without a lease (the ledger answers again). */
  #register(): void {
    for (const lease of this.#unleased) {
      if (lease.done) this.#unleased.delete(lease);
      if (lease.done || this.#registering.has(lease)) continue;
      this.#registering.add(lease);
      this.#shared.ledger.take(lease.replicaId, COUNT_ANYWAY).then(
        (id) => {
          this.#registering.delete(lease);
          if (id !== null) this.#attach(lease, id);
        },
        () => this.#registering.delete(lease),
      );
    }
  }

  /** The fallback: while requests wait, wake them every `retryMs` and read the counts again. */
  #poll(): void {
    this.#timers.arm("poll", this.#shared.retryMs, () => {
      if (this.#changed.size > 0 || this.#waiting() > 0) {
        this.#wakeAll();
        this.#refresh();
      }
      this.#poll();
    });
  }

  #refresh(): void {
    this.#shared.ledger.renew().catch(() => this.unreachable());
  }

  #wakeAll(): void {
    const waiters = [...this.#changed];
    this.#changed.clear();
    for (const done of waiters) done();
    this.#wake();
  }
}

function add(counts: Map<string, number>, key: string, delta: number): void {
  counts.set(key, (counts.get(key) ?? 0) + delta);
}

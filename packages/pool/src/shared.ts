import type { Clock } from "@llm-scheduler/core";
import { PoolError } from "./errors.js";
import { Fleet, type Lease } from "./fleet.js";
import type { Placed, Placement, Want } from "./placement.js";
import type { Replica } from "./replica.js";
import { SharedHealth } from "./shared-health.js";
import type { ResolvedShared } from "./shared-options.js";

/**
 * What a pool does with a shared ledger: leases per attempt and the other instances' load for its
 * routers ({@link Fleet}), and ejections carried between instances ({@link SharedHealth}, with health
 * checks on).
 */
export class Sharing {
  readonly fleet: Fleet;
  readonly #health: SharedHealth | undefined;

  constructor(
    shared: ResolvedShared,
    replicas: readonly Replica[],
    health: boolean,
    clock: Clock,
    placement: Placement,
  ) {
    this.fleet = new Fleet(
      shared,
      replicas,
      clock,
      () => placement.wake(),
      () => placement.waiting,
    );
    this.#health = health ? new SharedHealth(shared, replicas, clock) : undefined;
    this.fleet.start();
    this.#health?.start();
  }

  /** A replica was ejected here: tell the other instances. */
  ejected(replica: Replica): void {
    this.#health?.ejected(replica);
  }

  close(): void {
    this.fleet.close();
    this.#health?.close();
  }
}

/** A placed attempt and, with a shared ledger, the lease it holds on the replica. */
export interface LeasedPlaced extends Placed {
  readonly lease: Lease | undefined;
}

/**
 * Places `want` as the pool alone would (its router sees every instance's load), then, with a shared
 * ledger, takes a lease on the replica: refused (another instance took the last slot first), the
 * local slot goes back and another replica is tried; when every one refused, it waits until a slot
 * frees somewhere (or `retryMs`, the fallback) and asks again. While the ledger cannot be reached, the
 * replica's own limit is the only one (the request is not failed for it).
 */
export async function placeShared(
  placement: Placement,
  sharing: Sharing | undefined,
  want: Want,
  signal: AbortSignal,
): Promise<LeasedPlaced> {
  if (sharing === undefined) return { ...(await placement.place(want, signal)), lease: undefined };
  const refused = new Set<string>();
  for (;;) {
    let placed: Placed;
    try {
      placed = await placement.place({ ...want, tried: new Set([...want.tried, ...refused]) }, signal);
    } catch (error) {
      if (refused.size === 0 || !(error instanceof PoolError)) throw error;
      refused.clear();
      await sharing.fleet.changed(signal);
      continue;
    }
    const lease = await sharing.fleet.take(placed.replica);
    if (lease !== null) {
      if (!signal.aborted) return { ...placed, lease };
      giveBack(placement, sharing, { ...placed, lease });
      throw signal.reason;
    }
    placed.replica.give(placed.slot);
    placement.wake();
    refused.add(placed.replica.id);
  }
}

/** Gives the replica's slot and its lease back. */
export function giveBack(
  placement: Placement,
  sharing: Sharing | undefined,
  { replica, slot, lease }: LeasedPlaced,
  failure?: unknown,
): void {
  replica.give(slot, failure);
  if (lease !== undefined) sharing?.fleet.give(lease);
  placement.wake();
}

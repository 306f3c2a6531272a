import type { Clock } from "@llm-scheduler/core";
import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { PoolError } from "./errors.js";
import type { ReplicaLedger } from "./ledger.js";
import type { Placed, Placement, Want } from "./placement.js";
import type { Replica } from "./replica.js";
import { KeyedTimers } from "./timers.js";

/** A ledger shared by every gateway instance of the pool (see {@link ReplicaLedger}). */
export interface SharedOptions {
  readonly ledger: ReplicaLedger;
  /** How long a request waits before asking again when every replica's slots are leased elsewhere. @default 20 */
  readonly retryMs?: number;
  /** Milliseconds between reads of the other instances' ejections. @default 500 */
  readonly syncMs?: number;
  /** A lease not granted or refused within this long counts as the ledger being unreachable. @default 1000 */
  readonly timeoutMs?: number;
}

export type ResolvedShared = Required<SharedOptions>;

const SHARED_KEYS = ["ledger", "retryMs", "syncMs", "timeoutMs"];
const LEDGER_METHODS = ["take", "release", "renew", "counts", "eject", "ejections"] as const;

/** Checks `shared`; `undefined` when the pool counts its slots alone. */
export function resolveShared(shared: unknown): ResolvedShared | undefined {
  if (shared === undefined) return undefined;
  if (typeof shared !== "object" || shared === null) throw invalidOption("shared", "an object", shared);
  rejectUnknownKeys("shared", shared, SHARED_KEYS);
  const given = shared as SharedOptions;
  const ledger = given.ledger as unknown as Record<string, unknown> | undefined;
  const methods = LEDGER_METHODS.every((m) => typeof ledger?.[m] === "function");
  if (typeof ledger !== "object" || ledger === null || !methods) {
    throw invalidOption("shared.ledger", "a ReplicaLedger", "(not a ledger)");
  }
  return {
    ledger: given.ledger,
    retryMs: integerIn("shared.retryMs", given.retryMs, 1, 60_000, 20),
    syncMs: integerIn("shared.syncMs", given.syncMs, 10, 3_600_000, 500),
    timeoutMs: integerIn("shared.timeoutMs", given.timeoutMs, 1, 60_000, 1_000),
  };
}

/** A placed attempt and, with a shared ledger, the lease it holds on the replica. */
export interface LeasedPlaced extends Placed {
  readonly lease: string | undefined;
}

/**
 * Places `want` as the pool alone would, then, with a shared ledger, takes a lease on the replica:
 * refused (its slots are leased by other instances), the local slot goes back and another replica is
 * tried; when every one refused, it asks again after `retryMs`. While the ledger cannot be reached,
 * the replica's own limit is the only one (the request is not failed for it).
 */
export async function placeShared(
  placement: Placement,
  shared: ResolvedShared | undefined,
  want: Want,
  signal: AbortSignal,
): Promise<LeasedPlaced> {
  if (shared === undefined) return { ...(await placement.place(want, signal)), lease: undefined };
  const refused = new Set<string>();
  for (;;) {
    let placed: Placed;
    try {
      placed = await placement.place({ ...want, tried: new Set([...want.tried, ...refused]) }, signal);
    } catch (error) {
      if (refused.size === 0 || !(error instanceof PoolError)) throw error;
      refused.clear();
      await pause(shared.retryMs, signal);
      continue;
    }
    const lease = await takeWithin(shared, placed.replica.id, placed.replica.limit);
    if (lease !== null) {
      if (!signal.aborted) return { ...placed, lease };
      giveBack(placement, shared, { ...placed, lease });
      throw signal.reason;
    }
    placed.replica.give(placed.slot);
    placement.wake();
    refused.add(placed.replica.id);
  }
}

/**
 * A lease, `null` when refused, or `undefined` when the ledger failed or did not answer within
 * `timeoutMs` (unreachable: the replica's own limit still holds). A lease granted after the timeout
 * is given back at once.
 */
async function takeWithin(
  shared: ResolvedShared,
  replicaId: string,
  limit: number,
): Promise<string | null | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let late = false;
  const taking = shared.ledger.take(replicaId, limit);
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      late = true;
      resolve(undefined);
    }, shared.timeoutMs);
  });
  taking.then(
    (lease) => {
      if (late && lease !== null) shared.ledger.release(lease).catch(() => undefined);
    },
    () => undefined,
  );
  try {
    return await Promise.race([taking, timeout]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** Gives the replica's slot and its lease back (a lease the ledger cannot take back expires). */
export function giveBack(
  placement: Placement,
  shared: ResolvedShared | undefined,
  { replica, slot, lease }: LeasedPlaced,
  failure?: unknown,
): void {
  replica.give(slot, failure);
  if (lease !== undefined) shared?.ledger.release(lease).catch(() => undefined);
  placement.wake();
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Carries ejections between instances: an ejection here is written to the ledger, and every `syncMs`
 * the replicas another instance ejected are ejected here for the time that ejection has left.
 */
export class SharedHealth {
  readonly #shared: ResolvedShared;
  readonly #replicas: readonly Replica[];
  readonly #timers: KeyedTimers<"sync">;

  constructor(shared: ResolvedShared, replicas: readonly Replica[], clock: Clock) {
    this.#shared = shared;
    this.#replicas = replicas;
    this.#timers = new KeyedTimers(clock);
  }

  start(): void {
    this.#timers.arm("sync", this.#shared.syncMs, () => {
      void this.sync().finally(() => this.start());
    });
  }

  /** A replica was ejected here: tell the others for as long as it stays ejected. */
  ejected(replica: Replica): void {
    const ms = replica.health?.probeInMs();
    if (ms === undefined || ms <= 0) return;
    this.#shared.ledger.eject(replica.id, ms).catch(() => undefined);
  }

  /** Ejects here the replicas ejected elsewhere. */
  async sync(): Promise<void> {
    let ejections: Record<string, number>;
    try {
      ejections = await this.#shared.ledger.ejections();
    } catch {
      return; // unreachable: each instance goes on with its own view
    }
    for (const replica of this.#replicas) {
      const ms = ejections[replica.id];
      if (ms !== undefined && ms > 0 && replica.healthy) replica.health?.ejectFor(ms);
    }
  }

  close(): void {
    this.#timers.clear();
  }
}

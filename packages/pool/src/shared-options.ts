import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { ReplicaLedger } from "./ledger.js";

/** A ledger shared by every gateway instance of the pool (see {@link ReplicaLedger}). */
export interface SharedOptions {
  readonly ledger: ReplicaLedger;
  /**
   * The slow fallback for lost messages: a request waiting for a slot leased elsewhere is woken by the
   * ledger's counts (a release anywhere), and at the latest after this long it asks again. @default 1000
   */
  readonly retryMs?: number;
  /** Milliseconds between reads of the other instances' ejections. @default 500 */
  readonly syncMs?: number;
  /** A lease not granted or refused within this long counts as the ledger being unreachable. @default 1000 */
  readonly timeoutMs?: number;
}

export type ResolvedShared = Required<SharedOptions>;

const SHARED_KEYS = ["ledger", "retryMs", "syncMs", "timeoutMs"];
const LEDGER_METHODS = ["take", "release", "renew", "counts", "eject", "ejections", "watch"] as const;

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
    retryMs: integerIn("shared.retryMs", given.retryMs, 1, 60_000, 1_000),
    syncMs: integerIn("shared.syncMs", given.syncMs, 10, 3_600_000, 500),
    timeoutMs: integerIn("shared.timeoutMs", given.timeoutMs, 1, 60_000, 1_000),
  };
}

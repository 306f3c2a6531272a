import type { StoreConfig, StoreHost } from "@llm-scheduler/core/kit";
import { DrainGauge } from "./drain.js";
import { type LocalFallback, localOptions } from "./fallback.js";
import { type Entry, Ledger } from "./ledger.js";
import type { RedisStoreStatus, ResolvedRedisOptions } from "./options.js";
import type { Remote } from "./remote.js";
import { type Counts, NO_COUNTS } from "./replies.js";

/**
 * What the parts of one `RedisStore` share: its settings, its scripts, its ledger of tickets, the
 * scheduler it serves, and where it stands (talking to Redis, on the local fallback, or neither). The
 * store's operations, grant delivery, the heartbeat and the link to Redis all read and change it.
 */
export class StoreState {
  readonly config: ResolvedRedisOptions;
  readonly remote: Remote;
  /** This instance's tickets, from enqueue to release. */
  readonly ledger = new Ledger();
  host: StoreHost | null = null;
  options: StoreConfig | null = null;
  /** Global running and queued counts as Redis last reported them. */
  counts: Counts = NO_COUNTS;
  /** Each priority's global starts per second, from the start counters in the replies. */
  readonly drain = new DrainGauge();
  /** True while calls go to Redis. */
  up = false;
  /** The in-memory store that decides while Redis cannot be reached (`"local"` mode only). */
  fallback: LocalFallback | null = null;
  /** The first connection while it is being made; calls wait for it. */
  starting: Promise<void> | null = null;
  /** The scheduler let go of the store: nothing is sent or scheduled any more. */
  detached = false;
  /** Ids of tickets this instance gave up while Redis was down; taken out of Redis when it is back. */
  dropped: string[] = [];
  /**
   * The lease watchdog fired and no renewal reached Redis since: grants that arrive now may rest on a
   * lapsed lease and are refused.
   */
  leaseExpired = false;
  /** Where Redis is, for error messages: `host:port` or the cluster's nodes, never a password. */
  address = "Redis";
  /** The last error the connection met (e.g. `connect ECONNREFUSED`), the cause of STORE_UNAVAILABLE. */
  lastError: unknown = null;
  /** The status last reported to `onStatusChange`. */
  #reported: RedisStoreStatus = "connecting";

  constructor(config: ResolvedRedisOptions, remote: Remote) {
    this.config = config;
    this.remote = remote;
  }

  /** Where the store stands now. */
  get status(): RedisStoreStatus {
    if (this.detached) return "closed";
    if (this.up) return "connected";
    if (this.fallback !== null) return "local";
    return this.starting !== null || this.host === null ? "connecting" : "unavailable";
  }

  /**
   * Keeps `error` as the cause of STORE_UNAVAILABLE, unless one with a system code (ECONNREFUSED,
   * ENOTFOUND, …) is kept already and this one has none (a command timing out says less).
   */
  noteError(error: unknown): void {
    const coded = (e: unknown) => typeof (e as { code?: unknown } | null)?.code === "string";
    if (this.lastError === null || coded(error) || !coded(this.lastError)) this.lastError = error;
  }

  /** Tells `onStatusChange` when the status differs from the one it heard last. */
  report(): void {
    const status = this.status;
    const previous = this.#reported;
    if (status === previous) return;
    this.#reported = status;
    this.config.onStatusChange(status, previous);
  }

  /** The entry leaves: out of the ledger and out of the local fallback. */
  forget(entry: Entry): void {
    this.ledger.delete(entry);
    this.fallback?.forget(entry);
  }

  /**
   * The entries' tasks are stopped: the scheduler aborts each one's signal, rejects a caller not yet
   * answered with `error`, and forgets the slot without releasing it (Redis has it, or soon will).
   */
  revoke(entries: readonly Entry[], error: (entry: Entry) => unknown): void {
    for (const entry of entries) {
      this.forget(entry);
      this.host?.revoke(entry.ticket, error(entry));
    }
  }

  /** The options of the local fallback: the scheduler's, shared among the expected instances. */
  localOptions(): StoreConfig {
    const { expectedInstances, localMaxQueue } = this.config;
    return localOptions(this.options!, expectedInstances, localMaxQueue);
  }
}

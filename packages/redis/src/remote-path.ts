import type { EnqueueResult, StoreConfig, Ticket, TokenUsage } from "@llm-scheduler/core/kit";
import { unknownPriority } from "./errors.js";
import type { Grants } from "./grants.js";
import type { Entry } from "./ledger.js";
import type { Link } from "./link.js";
import { REMOVE_CHUNK } from "./remote.js";
import { enqueueStatus, Status } from "./replies.js";
import type { StoreState } from "./state.js";

const ignore = (): void => {};
const rethrow = (error: unknown): never => {
  throw error;
};

/**
 * The store's operations while Redis is up: each script's answer turned into what the scheduler
 * expects, and each failed call into Redis counting as down (the fallback takes over, or the call fails
 * when failing closed). A status saying Redis lost this instance's state starts a resync.
 */
export class RemotePath {
  readonly #state: StoreState;
  readonly #grants: Grants;
  readonly #link: Link;

  constructor(state: StoreState, grants: Grants, link: Link) {
    this.#state = state;
    this.#grants = grants;
    this.#link = link;
  }

  configure(options: StoreConfig): Promise<void> {
    const { remote, ledger } = this.#state;
    return remote.configure(options, ledger.list("granted").length > 0, !this.#link.heartbeat.lapsed()).then(
      (reply) => this.#grants.absorb(reply),
      (error: unknown) => this.#failed(error),
    );
  }

  enqueue(entry: Entry): Promise<EnqueueResult> {
    return this.#state.remote.enqueue(entry.ticket, this.#enqueued, this.#enqueueFailed, entry);
  }

  /** Takes a waiting ticket out of Redis; true whatever happens (a late grant is handed back). */
  remove(ticket: Ticket): Promise<boolean> {
    const { remote } = this.#state;
    return remote.remove(
      [remote.id(ticket)],
      (status) => {
        if (Number(status) === Status.UNCONFIGURED) this.#link.resync();
        return true;
      },
      (error: unknown) => {
        this.#link.markDown(error);
        return true; // a grant that still comes is handed straight back (see Grants.deliver)
      },
    );
  }

  /** Takes every given waiting ticket out of Redis, in chunks; resolves with them whatever happens. */
  removeAll(tickets: Ticket[]): Promise<Ticket[]> {
    const { remote } = this.#state;
    const calls: Promise<void>[] = [];
    for (let i = 0; i < tickets.length; i += REMOVE_CHUNK) {
      const ids = tickets.slice(i, i + REMOVE_CHUNK).map((ticket) => remote.id(ticket));
      calls.push(remote.remove(ids, ignore, rethrow));
    }
    return Promise.all(calls).then(
      () => tickets,
      (error: unknown) => {
        this.#link.markDown(error);
        return tickets;
      },
    );
  }

  release(ids: readonly string[]): Promise<void> {
    return this.#state.remote.release(ids, this.#answered, this.#failed);
  }

  /** Gives back slots that nobody here wants (granted after their ticket was removed or abandoned). */
  handBack(ids: readonly string[]): void {
    this.release(ids).catch(this.#state.config.onError);
  }

  /**
   * A preemption victim let go (see yield.lua): its slot goes to its arrival and, when `entry` is
   * given, that ticket waits again (the ledger counts it waiting already).
   */
  yieldSlot(ticket: Ticket, entry: Entry | undefined): Promise<void> {
    const { remote, ledger, host, config } = this.#state;
    return remote.yieldSlot(ticket, entry !== undefined).then(
      (reply) => {
        this.#grants.absorb(reply);
        if (reply.status === Status.UNREGISTERED || reply.status === Status.UNCONFIGURED) {
          this.#link.resync(); // sends every waiting ticket again, this one included
        } else if (reply.status === Status.UNKNOWN_PRIORITY && entry !== undefined) {
          if (ledger.of(ticket) === entry && entry.state === "waiting") {
            this.#state.forget(entry);
            host?.fail(ticket, unknownPriority(ticket, config.prefix));
          }
        }
      },
      (error: unknown) => this.#failed(error),
    );
  }

  /** Running tickets that are never to be victims again in this run (see spare.lua). */
  spare(ids: readonly string[]): Promise<void> {
    return this.#state.remote.spare(ids).then(
      (reply) => {
        this.#grants.absorb(reply);
        if (reply.status === Status.UNCONFIGURED) this.#link.resync();
      },
      (error: unknown) => this.#failed(error),
    );
  }

  /** Reported usage goes to Redis with the next call; a failed call counts as Redis down. */
  usage(ticket: Ticket, usage: TokenUsage): Promise<void> {
    return this.#state.remote.usage(ticket, usage, this.#answered, this.#failed);
  }

  /** The script's answer for one ticket; the grants its call made were delivered just before. */
  readonly #enqueued = (raw: string, entry: Entry): EnqueueResult => {
    const { ledger, remote, config } = this.#state;
    const { code: status, retryAfterMs } = enqueueStatus(raw);
    if (status === Status.TENANT_FULL || status === Status.RATE_LIMITED) {
      ledger.delete(entry);
      return status === Status.TENANT_FULL ? "tenant-full" : { rateLimited: true, retryAfterMs };
    }
    if (status === Status.UNREGISTERED || status === Status.UNCONFIGURED) {
      this.#link.resync(); // sends every waiting ticket again, this one included
      return "queued";
    }
    const current = ledger.of(entry.ticket) === entry;
    if (status === Status.FULL || status === Status.UNKNOWN_PRIORITY) {
      ledger.delete(entry);
      if (status === Status.FULL) return "full";
      throw unknownPriority(entry.ticket, config.prefix);
    }
    if (status === Status.GRANTED || status === Status.ALREADY_GRANTED) {
      // removed while the call was out, or the watchdog fired meanwhile (the lease may have lapsed)
      if (!current || (entry.state === "waiting" && this.#state.leaseExpired)) {
        this.handBack([remote.id(entry.ticket)]);
        return "queued";
      }
      if (entry.state === "waiting") {
        ledger.start(entry);
        return "granted";
      }
    }
    return "queued";
  };

  readonly #enqueueFailed = (error: unknown, entry: Entry): EnqueueResult => {
    const state = this.#state;
    this.#link.markDown(error); // in "local" mode this moves every waiting ticket, this one too, to the fallback
    if (state.ledger.of(entry.ticket) !== entry || entry.state !== "waiting") return "queued";
    if (entry.local === "queued") return "queued"; // the local fallback took it over
    state.ledger.delete(entry);
    state.dropped.push(state.remote.id(entry.ticket)); // the call may have reached Redis (a timeout)
    if (state.fallback !== null) return "full";
    throw error;
  };

  /** A release or usage report was answered: a status saying Redis lost the state starts a resync. */
  readonly #answered = (status: string): void => {
    if (Number(status) === Status.UNCONFIGURED) this.#link.resync();
  };

  /** A call failed: Redis counts as down; "fail-closed" passes the error on. */
  readonly #failed = (error: unknown): void => {
    this.#link.markDown(error);
    if (this.#state.config.onStoreError === "fail-closed") throw error;
  };
}

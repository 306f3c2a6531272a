import type { ResolvedPriority } from "@llm-scheduler/core";
import {
  type EnqueueResult,
  MemoryStore,
  type ResolvedTenant,
  type StoreConfig,
  type StoreHost,
  type StoreSnapshot,
  type Ticket,
  type TokenUsage,
} from "@llm-scheduler/core/kit";
import type { Entry, Ledger } from "./ledger.js";

/**
 * The options of the local fallback while Redis is down: the scheduler's options with every limit
 * divided by the number of instances (at least one slot), reserves scaled the same way, the token
 * budget and each tenant's cap and bucket divided too, and queue bounds capped so that nothing waits
 * locally without bound.
 *
 * @example
 * localOptions(options, 4, 1_000); // maxConcurrency 32 -> 8 per instance
 */
export function localOptions(
  options: StoreConfig,
  expectedInstances: number,
  localMaxQueue: number,
): StoreConfig {
  const share = (limit: number): number => Math.max(1, Math.floor(limit / expectedInstances));
  const maxConcurrency = share(options.maxConcurrency);
  let reserveLeft = maxConcurrency;
  const priorities = options.priorities.map((priority): ResolvedPriority => {
    const max = Math.min(share(priority.maxConcurrency), maxConcurrency);
    const reserved = Math.min(Math.floor(priority.reserved / expectedInstances), max, reserveLeft);
    reserveLeft -= reserved;
    return {
      ...priority,
      maxConcurrency: max,
      reserved,
      maxQueue: Math.min(priority.maxQueue, localMaxQueue),
    };
  });
  return {
    ...options,
    maxConcurrency,
    maxQueue: Math.min(options.maxQueue, localMaxQueue),
    priorities,
    maxTokensInFlight: shareOf(options.maxTokensInFlight, expectedInstances),
    tenantDefaults: tenantShare(options.tenantDefaults, expectedInstances),
    tenantQuotas: new Map(
      [...options.tenantQuotas].map(([name, tenant]) => [name, tenantShare(tenant, expectedInstances)]),
    ),
  };
}

/** An instance's share of a limit: at least 1; Infinity stays Infinity. */
function shareOf(limit: number, instances: number): number {
  return limit === Number.POSITIVE_INFINITY ? limit : Math.max(1, Math.floor(limit / instances));
}

/** A tenant's quotas divided among the instances like the global limit (its queue bound is kept). */
function tenantShare(tenant: ResolvedTenant, instances: number): ResolvedTenant {
  return {
    ...tenant,
    maxConcurrency: shareOf(tenant.maxConcurrency, instances),
    tokensPerMinute: shareOf(tenant.tokensPerMinute, instances),
    burstTokens: shareOf(tenant.burstTokens, instances),
  };
}

/**
 * The in-memory store that decides for this instance alone while Redis cannot be reached ("local" mode),
 * under the local limit, with bounded queues. Taking over, it lets the tasks still running take its
 * slots first (so the local limit counts them), then queues the waiting tickets in their order. Each
 * ledger entry says whether the fallback holds it (`local`). Every grant reaches the scheduler once.
 */
export class LocalFallback {
  readonly #store = new MemoryStore();
  readonly #ledger: Ledger;
  readonly #host: StoreHost;

  constructor(ledger: Ledger, host: StoreHost, options: StoreConfig) {
    this.#ledger = ledger;
    this.#host = host;
    this.#store.attach({ ...host, grant: (ticket) => this.#granted(ticket) }, options);
  }

  /** Takes every entry of the ledger in: running ones first, then the waiting ones in order. */
  takeOver(): void {
    for (const entry of [...this.#ledger.list("granted"), ...this.#ledger.list("waiting")]) {
      if (entry.local !== "none") continue; // granted meanwhile by this loop's own pumps
      const waiting = entry.state === "waiting";
      if (this.enqueue(entry) === "granted" && waiting) this.#host.grant(entry.ticket);
    }
  }

  /**
   * Admits an entry; "granted" starts it in the ledger (the caller tells the scheduler); a refusal
   * ("full", "tenant-full", rate limited) leaves it out.
   */
  enqueue(entry: Entry): EnqueueResult {
    entry.local = "queued";
    const result = this.#store.enqueue(entry.ticket);
    if (result !== "granted" && result !== "queued") {
      entry.local = "none"; // refused: a queue or the tenant's quota is full
    } else if (result === "granted") {
      entry.local = "holding";
      if (entry.state === "waiting") this.#ledger.start(entry);
    }
    return result;
  }

  /** The entry leaves (released, removed, or granted by Redis after all): free what it holds here. */
  forget(entry: Entry): void {
    if (entry.local === "holding") this.#store.release(entry.ticket);
    else if (entry.local === "queued") this.#store.remove(entry.ticket);
    entry.local = "none";
  }

  /** Redis is back: the entries are Redis's again, and this store is dropped. */
  handBack(): void {
    for (const entry of [...this.#ledger.list("granted"), ...this.#ledger.list("waiting")]) {
      entry.local = "none";
    }
  }

  configure(options: StoreConfig): void {
    this.#store.configure(options);
  }

  /** Reported usage of a ticket that runs (or ran) here corrects this store's tenant books. */
  reportUsage(ticket: Ticket, usage: TokenUsage): void {
    this.#store.reportUsage(ticket, usage);
  }

  depth(priority: string): number {
    return this.#store.depth(priority);
  }

  snapshot(tenantLimit: number): StoreSnapshot {
    return this.#store.snapshot(tenantLimit);
  }

  /** A waiting ticket starts, or a running one now counts against the local limit. */
  #granted(ticket: Ticket): void {
    const entry = this.#ledger.of(ticket);
    if (entry === undefined) {
      this.#store.release(ticket); // nobody holds it any more
      return;
    }
    entry.local = "holding";
    if (entry.state === "waiting") {
      this.#ledger.start(entry);
      this.#host.grant(ticket);
    }
  }
}

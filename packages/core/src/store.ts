import type { Clock } from "./clock.js";
import type { ResolvedPreemption } from "./options.js";

/** A value now, or later: the in-memory store answers synchronously, a remote one with a promise. */
export type MaybePromise<T> = T | Promise<T>;

/** One waiting request as a store sees it. The scheduler creates tickets; stores never copy them. */
export interface Ticket {
  /** Unique among this scheduler's tickets (a store that is shared prefixes it with its instance id). */
  readonly seq: number;
  readonly priority: string;
  readonly tenant: string;
  /** Units of `maxConcurrency` the task takes while it runs. */
  readonly cost: number;
  /** Estimated tokens (input plus expected output), charged at start; absent or 0 when not given. */
  readonly tokens?: number;
  /** Goes to the front of its tenant's queue. */
  readonly retry: boolean;
  /** When it joined the queue, by the scheduler's clock. */
  readonly enqueuedAt: number;
}

/** A priority with every field decided. */
export interface ResolvedPriority {
  readonly name: string;
  /** Position in configuration order; ties between priorities go to the lower index. */
  readonly index: number;
  readonly weight: number;
  readonly reserved: number;
  readonly maxConcurrency: number;
  readonly queueTimeoutMs: number;
  readonly maxQueue: number;
  readonly maxWaitMs: number;
}

/** A tenant's quotas with every field decided (`Infinity` for none). */
export interface ResolvedTenant {
  readonly weight: number;
  readonly maxConcurrency: number;
  readonly maxQueue: number;
  readonly tokensPerMinute: number;
  /** The bucket's size (`Infinity` when there is no bucket). */
  readonly burstTokens: number;
  /** The most urgent priority it may use, or `undefined` for any. */
  readonly maxPriority: string | undefined;
}

/** Tokens one task really used, as the upstream counted them. */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/**
 * What a store works from (`attach`, `configure`): the clock, the limits, each priority's resolved
 * settings and the tenant weights; nothing of the scheduler's own bookkeeping.
 */
export interface StoreConfig {
  readonly clock: Clock;
  /** The limit in force (with an adaptive limit, the one it last set). */
  readonly maxConcurrency: number;
  /**
   * True when the limit is adaptive: a shared store then keeps a global limit already set through
   * `adjustLimit` instead of overwriting it from `configure`. Absent otherwise.
   */
  readonly adaptiveLimit?: true;
  /** Waiting tasks over all priorities; `Infinity` for no bound. */
  readonly maxQueue: number;
  /** In configuration order (most urgent first). */
  readonly priorities: readonly ResolvedPriority[];
  /** Weights of tenants that have one (keys as the scheduler uses them; see `shortKey`). */
  readonly tenantWeights: ReadonlyMap<string, number>;
  /** Estimated tokens in flight at once (`Infinity` for no budget). */
  readonly maxTokensInFlight: number;
  readonly fairness: "requests" | "tokens";
  /** What one output token counts in `fairness: "tokens"`, against 1 for an input token. */
  readonly outputTokenWeight: number;
  /** The quotas of a tenant without an entry of its own. */
  readonly tenantDefaults: ResolvedTenant;
  /** Tenants with an entry of their own (keys as the scheduler uses them). */
  readonly tenantQuotas: ReadonlyMap<string, ResolvedTenant>;
  /**
   * Who may preempt whom, for a store that chooses victims itself (see `Store.releasePreempted`);
   * absent or `null` when no priority preempts.
   */
  readonly preemption?: ResolvedPreemption | null;
}

/** What a store answers when asked to admit a ticket. */
export type EnqueueResult =
  /** A slot was free and the ticket holds it now. */
  | "granted"
  /** The ticket waits; the store calls `host.grant(ticket)` when it gets a slot (possibly before this returns). */
  | "queued"
  /** The priority's or the overall queue bound was reached; nothing was kept. */
  | "full"
  /** The tenant's `maxQueue` was reached; nothing was kept. */
  | "tenant-full"
  /** The tenant's token bucket cannot cover the ticket; it may try again after `retryAfterMs`. */
  | { readonly rateLimited: true; readonly retryAfterMs: number };

/** What the scheduler offers the store it is attached to. */
export interface StoreHost {
  readonly clock: Clock;
  /**
   * The ticket now holds a slot. Called at most once per ticket. `now`: the clock time the store read
   * for this grant, if it read one (the scheduler then counts the start from it instead of reading again).
   */
  grant(ticket: Ticket, now?: number): void;
  /**
   * The store dropped a waiting ticket on its own (for example a re-send after an outage found the queue
   * full, or the store failed closed): the scheduler rejects its caller with `error`.
   */
  fail(ticket: Ticket, error: unknown): void;
  /**
   * The store took back a granted slot on its own (for example a lease that lapsed while this instance
   * stalled): the scheduler aborts the task's signal and forgets the slot without releasing it again.
   */
  revoke(ticket: Ticket, error: unknown): void;
  /**
   * A store that chooses victims itself (see `Store.releasePreempted`) chose this instance's running
   * `ticket` as the victim of an arrival of priority `by`: the scheduler stops it as it stops any
   * victim (the `preempted` event, a signal aborted with `PREEMPTED`, the abort grace) and answers
   * true; or, when the task may not be stopped (its response streams, it was preempted `maxPerTask`
   * times, it no longer runs), false, and the store chooses again. A task already stopping (its
   * caller aborted) answers true: its slot is about to be let go. Asking again about a victim that is
   * winding down answers true and changes nothing.
   */
  preempt?(ticket: Ticket, by: string): boolean;
}

/** Running and queued counts as one store knows them, for `metrics()`. */
export interface StoreSnapshot {
  readonly running: number;
  readonly queued: number;
  readonly priorities: Readonly<Record<string, { readonly running: number; readonly queued: number }>>;
  /** The busiest tenants first, at most `limit` of them. */
  readonly tenants: ReadonlyArray<{
    readonly tenant: string;
    readonly priority: string;
    readonly running: number;
    readonly queued: number;
    /** Weighted tokens started (estimates, corrected by reported usage), when the store counts them. */
    readonly tokensServed?: number;
    /** Estimated tokens of the tenant's running tasks. */
    readonly tokensInFlight?: number;
    /** Tokens in the tenant's bucket now (may be negative after a large correction); absent without one. */
    readonly bucket?: number;
    /** Tasks refused by the tenant's quotas (`TENANT_QUEUE_FULL`, `RATE_LIMITED`). */
    readonly throttled?: number;
  }>;
}

/**
 * Where queued tickets, running counts and the picker's state live, and where each decision (admit,
 * grant, remove, release) is made atomically. The in-memory store answers synchronously; a shared store
 * such as Redis answers with promises. Every method may be called while another's promise is pending.
 */
export interface Store {
  /** Called once by the scheduler that owns the store, before anything else. */
  attach(host: StoreHost, config: StoreConfig): MaybePromise<void>;
  /** New limits or priorities (from `update()`); waiting tickets are kept and re-evaluated. */
  configure(config: StoreConfig): MaybePromise<void>;
  /** Admits a ticket: grants it a slot at once, queues it, or refuses it because a queue is full. */
  enqueue(ticket: Ticket): MaybePromise<EnqueueResult>;
  /**
   * Synchronous stores only (optional): grants a slot at once if one is free for the ticket and nothing
   * waits, exactly as `enqueue` would answer "granted"; otherwise changes nothing and answers `false`.
   */
  tryGrant?(ticket: Ticket): boolean;
  /**
   * Takes a waiting ticket out of the queue. `true` when it was waiting and is gone; `false` when it was
   * already granted (the grant is then delivered, or was, through `host.grant`) or unknown.
   */
  remove(ticket: Ticket): MaybePromise<boolean>;
  /**
   * Optional: the tokens a granted ticket really used (at most once per ticket, while it runs or just
   * after): corrects its tenant's bucket and fairness counter by the difference from `ticket.tokens`.
   */
  reportUsage?(ticket: Ticket, usage: TokenUsage): MaybePromise<void>;
  /**
   * Optional, synchronous stores only (preemption needs it): frees the granted ticket `from`'s slot and,
   * before anything else may take it, starts the waiting ticket `to` in it (through `host.grant`) when
   * `to` still waits and fits; then fills what is left as usual. Answers whether `to` started. Stands
   * for `release(from)`: `from` must not be released again.
   */
  handOver?(from: Ticket, to: Ticket): boolean;
  /**
   * Optional, synchronous stores only (preemption asks it when present): whether the waiting ticket
   * `arrival` would start if the running ticket `victim` let go of its slot now, by every limit a start
   * checks (total, reserves, priority cap, tenant `maxConcurrency`, token budget). Changes nothing.
   * Without it, preemption checks only the arrival's priority cap.
   */
  canStartAfterFreeing?(arrival: Ticket, victim: Ticket): boolean;
  /**
   * Optional, synchronous stores only (preemption needs it): a released ticket whose run was preempted
   * waits again, at the front of its tenant's queue and of its priority's aging order, with no admission
   * check (bounds, quotas); what its preempted start was charged (tokens, fairness) is given back.
   */
  requeue?(ticket: Ticket): void;
  /**
   * Optional, for stores shared by several instances (preemption across them needs it, in place of
   * `handOver` and `requeue`): the store chooses victims itself among the running tickets of every
   * instance, when a ticket of a priority that preempts waits (by `StoreConfig.preemption`), and tells
   * the victim's instance through `host.preempt`. When a victim lets go, the scheduler calls this in
   * place of `release`: the store hands the slot to that arrival (or the next one still waiting) before
   * anything else may take it, and, when `requeue`, the ticket waits again as `requeue` says. Stands for
   * `release(ticket)`.
   */
  releasePreempted?(ticket: Ticket, requeue: boolean): MaybePromise<void>;
  /**
   * Optional, with `releasePreempted`: the running ticket is never to be chosen as a victim from now on
   * (a permit whose response sent its first byte).
   */
  spare?(ticket: Ticket): MaybePromise<void>;
  /** Gives a granted ticket's slot back. Called once per granted ticket. */
  release(ticket: Ticket): MaybePromise<void>;
  /** Removes and returns every ticket of this scheduler that still waits (used by `close()`). */
  removeAll(): MaybePromise<Ticket[]>;
  /** How many tickets of `priority` wait now (cheap: called on every rejection). */
  depth(priority: string): number;
  /**
   * Optional: starts per second of `priority` across every instance sharing the store, as the store last
   * measured it (`undefined` when it has no measure). Retry hints use it instead of this instance's own
   * start rate, which is about N times too slow with N instances. Cheap: called on every rejection.
   */
  drainRate?(priority: string): number | undefined;
  /**
   * Optional, for stores shared by several schedulers: changes the one global limit of an adaptive
   * scheduler atomically (see {@link LimitProposal}) and answers the global limit in force after it.
   * Without it, each scheduler's adaptive limit is its own and reaches the store through `configure`.
   */
  adjustLimit?(proposal: LimitProposal): MaybePromise<LimitState>;
  /** Counts for `metrics()`; a shared store may answer from its last known state. */
  snapshot(tenantLimit: number): StoreSnapshot;
  /** The owning scheduler is closed; stop timers and subscriptions. Shared connections stay the user's. */
  detach(): MaybePromise<void>;
}

/**
 * A change of a shared adaptive limit. It applies only when `epoch` is the global limit's epoch (so N
 * instances seeing one overload cut once), or when `force` (a limit set by `update()`); the result is
 * held in `[floor, max]` and at most `maxIncrease` above the global limit. `limit` equal to the global
 * one changes nothing (a read).
 */
export interface LimitProposal {
  readonly epoch: number;
  readonly limit: number;
  readonly floor: number;
  readonly max: number;
  readonly maxIncrease: number;
  readonly force: boolean;
}

/** The global limit and its epoch (incremented by every change), after a proposal. */
export interface LimitState {
  readonly limit: number;
  readonly epoch: number;
  /** True when this proposal made the change (false: refused as stale, or nothing to change). */
  readonly changed: boolean;
}

/**
 * What a store can do beyond the methods every store has, read once from the optional methods it
 * implements: the scheduler checks each configuration against it before taking any of it, so a store
 * that cannot serve a configuration refuses it synchronously, at `createScheduler()` or `update()`.
 */
export interface StoreAbilities {
  /** It has `handOver` and `requeue`, or `releasePreempted`: priorities may preempt (`preempts`). */
  readonly preemption: boolean;
}

/**
 * The abilities of `store`, from the optional methods it has (see {@link StoreAbilities}).
 *
 * @example
 * storeAbilities(new MemoryStore()); // { preemption: true }
 */
export function storeAbilities(store: Store): StoreAbilities {
  const preemption =
    (typeof store.handOver === "function" && typeof store.requeue === "function") ||
    typeof store.releasePreempted === "function";
  return Object.freeze({ preemption });
}

/** True when `value` is a promise (or any thenable): the caller must wait for it. */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

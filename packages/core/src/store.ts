import type { Clock } from "./clock.js";
import type { ResolvedOptions } from "./options.js";

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
  /** Goes to the front of its tenant's queue. */
  readonly retry: boolean;
  /** When it joined the queue, by the scheduler's clock. */
  readonly enqueuedAt: number;
  /**
   * Scratch fields owned by the in-memory store (intrusive list links, so that queueing allocates
   * nothing). Other stores leave them alone.
   */
  prev: Ticket | null;
  next: Ticket | null;
  olderPrev: Ticket | null;
  olderNext: Ticket | null;
}

/** What a store answers when asked to admit a ticket. */
export type EnqueueResult =
  /** A slot was free and the ticket holds it now. */
  | "granted"
  /** The ticket waits; the store calls `host.grant(ticket)` when it gets a slot (possibly before this returns). */
  | "queued"
  /** The priority's or the overall queue bound was reached; nothing was kept. */
  | "full";

/** What the scheduler offers the store it is attached to. */
export interface StoreHost {
  readonly clock: Clock;
  /** The ticket now holds a slot. Called at most once per ticket. */
  grant(ticket: Ticket): void;
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
  }>;
}

/**
 * Where queued tickets, running counts and the picker's state live, and where each decision (admit,
 * grant, remove, release) is made atomically. The in-memory store answers synchronously; a shared store
 * such as Redis answers with promises. Every method may be called while another's promise is pending.
 */
export interface Store {
  /** Called once by the scheduler that owns the store, before anything else. */
  attach(host: StoreHost, options: ResolvedOptions): MaybePromise<void>;
  /** New limits or priorities (from `update()`); waiting tickets are kept and re-evaluated. */
  configure(options: ResolvedOptions): MaybePromise<void>;
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
  /** Gives a granted ticket's slot back. Called once per granted ticket. */
  release(ticket: Ticket): MaybePromise<void>;
  /** Removes and returns every ticket of this scheduler that still waits (used by `close()`). */
  removeAll(): MaybePromise<Ticket[]>;
  /** How many tickets of `priority` wait now (cheap: called on every rejection). */
  depth(priority: string): number;
  /**
   * Shared stores only (optional): starts per second of `priority` across every instance sharing the
   * store, as last measured; `undefined` while unknown. Retry estimates use it instead of this
   * instance's own start rate.
   */
  drainRate?(priority: string): number | undefined;
  /** Counts for `metrics()`; a shared store may answer from its last known state. */
  snapshot(tenantLimit: number): StoreSnapshot;
  /** The owning scheduler is closed; stop timers and subscriptions. Shared connections stay the user's. */
  detach(): MaybePromise<void>;
}

/** True when `value` is a promise (or any thenable): the caller must wait for it. */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

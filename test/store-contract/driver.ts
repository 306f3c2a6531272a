import {
  createScheduler,
  type ResolvedOptions,
  type SchedulerOptions,
  VirtualClock,
} from "@llm-scheduler/core";
import type { EnqueueResult, Store, Ticket, TokenUsage } from "@llm-scheduler/core/kit";

/** What a test asks for when it makes a ticket. */
export interface TicketInit {
  readonly priority: string;
  readonly tenant?: string;
  readonly cost?: number;
  /** Estimated tokens (charged at start); none when absent. */
  readonly tokens?: number;
  readonly retry?: boolean;
}

/** One thing a store did, in order: a grant through `host.grant`, or an answer to a call. */
export type StoreEvent =
  | readonly ["grant", number]
  | readonly ["fail" | "revoke", number]
  | readonly ["enqueue", number, EnqueueResult]
  | readonly ["remove", number, boolean];

/** The scheduler's resolved options for `options` (validated exactly as `createScheduler` does). */
export function resolved(options: SchedulerOptions, clock: VirtualClock): ResolvedOptions {
  return createScheduler({ ...options, clock }).options;
}

/**
 * Drives one store through the `Store` interface as a scheduler would, with a virtual clock, and
 * records every grant and answer in order, so that two stores fed the same calls can be compared.
 */
export class Driver {
  readonly clock: VirtualClock;
  readonly store: Store;
  readonly events: StoreEvent[] = [];
  /** Seqs granted, in order, whether by an enqueue's answer or through `host.grant`. */
  readonly granted: number[] = [];
  readonly #tickets = new Map<number, Ticket>();
  #seq = 0;
  options: ResolvedOptions;

  constructor(store: Store, options: SchedulerOptions, clock = new VirtualClock(1_000_000)) {
    this.store = store;
    this.clock = clock;
    this.options = resolved(options, clock);
  }

  async attach(): Promise<void> {
    await this.store.attach(
      {
        clock: this.clock,
        grant: (ticket) => {
          this.events.push(["grant", ticket.seq]);
          this.granted.push(ticket.seq);
        },
        fail: (ticket) => this.events.push(["fail", ticket.seq]),
        revoke: (ticket) => this.events.push(["revoke", ticket.seq]),
      },
      this.options,
    );
  }

  ticket(init: TicketInit): Ticket {
    const ticket: Ticket = {
      seq: ++this.#seq,
      priority: init.priority,
      tenant: init.tenant ?? "default",
      cost: init.cost ?? 1,
      ...(init.tokens === undefined ? {} : { tokens: init.tokens }),
      retry: init.retry ?? false,
      enqueuedAt: this.clock.now(),
    };
    this.#tickets.set(ticket.seq, ticket);
    return ticket;
  }

  /** Makes a ticket and enqueues it; returns the ticket and the store's answer. */
  async enqueue(init: TicketInit): Promise<[Ticket, EnqueueResult]> {
    const ticket = this.ticket(init);
    const result = await this.store.enqueue(ticket);
    this.events.push(["enqueue", ticket.seq, result]);
    if (result === "granted") this.granted.push(ticket.seq);
    return [ticket, result];
  }

  /** Enqueues several tickets in order; returns the tickets. */
  async enqueueAll(inits: readonly TicketInit[]): Promise<Ticket[]> {
    const tickets: Ticket[] = [];
    for (const init of inits) tickets.push((await this.enqueue(init))[0]);
    return tickets;
  }

  get(seq: number): Ticket {
    return this.#tickets.get(seq)!;
  }

  async release(seq: number): Promise<void> {
    await this.store.release(this.get(seq));
  }

  async remove(seq: number): Promise<boolean> {
    const removed = await this.store.remove(this.get(seq));
    this.events.push(["remove", seq, removed]);
    return removed;
  }

  /** Reports what a granted ticket really used (as a task's `reportUsage` does). */
  async reportUsage(seq: number, usage: TokenUsage): Promise<void> {
    await this.store.reportUsage?.(this.get(seq), usage);
  }

  async configure(options: SchedulerOptions): Promise<void> {
    this.options = resolved(options, this.clock);
    await this.store.configure(this.options);
  }

  /** The seqs granted since the given count of grants. */
  grantedSince(count: number): number[] {
    return this.granted.slice(count);
  }

  async close(): Promise<void> {
    await this.store.detach();
  }
}

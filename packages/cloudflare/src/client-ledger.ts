import type { StoreSnapshot, Ticket } from "@llm-scheduler/core/kit";

/** One ticket of this isolate's scheduler, as the store follows it. */
export interface ClientEntry {
  readonly key: string;
  readonly ticket: Ticket;
  state: "waiting" | "running";
  /** Running: the send time of the call whose reply brought its grant. */
  since: number;
  /** Its enqueue has answered: until then a grant is the answer's to tell, not `host.grant`'s. */
  answered: boolean;
  /** The object's life when the ticket was queued: a later life has lost it, and it is sent again. */
  epoch: number;
}

/** This isolate's tickets, waiting or running, by key. */
export class ClientLedger {
  readonly #entries = new Map<string, ClientEntry>();

  get(key: string): ClientEntry | undefined {
    return this.#entries.get(key);
  }

  add(key: string, ticket: Ticket, epoch: number): ClientEntry {
    const entry: ClientEntry = { key, ticket, state: "waiting", since: 0, answered: false, epoch };
    this.#entries.set(key, entry);
    return entry;
  }

  delete(entry: ClientEntry): void {
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
  }

  /** Is this entry still followed (not released, removed or lost)? */
  has(entry: ClientEntry): boolean {
    return this.#entries.get(entry.key) === entry;
  }

  list(state: ClientEntry["state"]): ClientEntry[] {
    return [...this.#entries.values()].filter((entry) => entry.state === state);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** This isolate's busiest tenants (per priority), for `snapshot()`. */
  tenants(limit: number): StoreSnapshot["tenants"] {
    const counts = new Map<string, { tenant: string; priority: string; running: number; queued: number }>();
    for (const { ticket, state } of this.#entries.values()) {
      const id = `${ticket.priority}\u0000${ticket.tenant}`;
      let count = counts.get(id);
      if (count === undefined) {
        count = { tenant: ticket.tenant, priority: ticket.priority, running: 0, queued: 0 };
        counts.set(id, count);
      }
      if (state === "running") count.running += ticket.cost;
      else count.queued += 1;
    }
    return [...counts.values()]
      .sort((a, b) => b.running + b.queued - (a.running + a.queued))
      .slice(0, Math.max(0, limit));
  }
}

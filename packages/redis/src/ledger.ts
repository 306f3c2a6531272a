import type { Ticket } from "@llm-scheduler/core/kit";

/** Where one of this instance's tickets stands: waiting for a grant, or granted (the scheduler was told). */
export type EntryState = "waiting" | "granted";

/** What the local fallback holds of an entry: nothing, a place in its queue, or one of its slots. */
export type LocalHold = "none" | "queued" | "holding";

/** This instance's record of one of its tickets, from enqueue to release. */
export interface Entry {
  readonly ticket: Ticket;
  state: EntryState;
  local: LocalHold;
  /** Its priority and tenant's counts, found once when it arrives. */
  readonly count: TenantCount;
}

interface TenantCount {
  readonly tenant: string;
  readonly priority: string;
  running: number;
  queued: number;
}

/**
 * The tickets this instance has handed to the store and not yet got back, in arrival order, with
 * per-tenant counts kept as they change (for `snapshot()`). It is what the store reconciles Redis with
 * after an outage, and what makes every grant reach the scheduler at most once.
 */
export class Ledger {
  readonly #entries = new Map<number, Entry>();
  /** Every count with a ticket, in order of arrival (for {@link tenants}). */
  readonly #tenants = new Set<TenantCount>();
  /** The same counts by priority, then tenant: found without building a key per ticket. */
  readonly #byPriority = new Map<string, Map<string, TenantCount>>();

  get size(): number {
    return this.#entries.size;
  }

  /** The entry of a ticket of this scheduler, or undefined once it has left. */
  get(seq: number): Entry | undefined {
    return this.#entries.get(seq);
  }

  /** The live entry for exactly this ticket object. */
  of(ticket: Ticket): Entry | undefined {
    const entry = this.#entries.get(ticket.seq);
    return entry?.ticket === ticket ? entry : undefined;
  }

  add(ticket: Ticket): Entry {
    const entry: Entry = { ticket, state: "waiting", local: "none", count: this.#count(ticket) };
    this.#entries.set(ticket.seq, entry);
    entry.count.queued++;
    return entry;
  }

  /** The entry's ticket was granted. */
  start(entry: Entry): void {
    entry.state = "granted";
    const count = entry.count;
    count.queued--;
    count.running++;
  }

  /** The entry's ticket was preempted and waits again. */
  requeue(entry: Entry): void {
    if (entry.state !== "granted") return;
    entry.state = "waiting";
    entry.count.running--;
    entry.count.queued++;
  }

  delete(entry: Entry): void {
    if (this.#entries.get(entry.ticket.seq) !== entry) return;
    this.#entries.delete(entry.ticket.seq);
    const count = entry.count;
    if (entry.state === "waiting") count.queued--;
    else count.running--;
    if (count.queued === 0 && count.running === 0) {
      this.#tenants.delete(count);
      this.#byPriority.get(count.priority)?.delete(count.tenant);
    }
  }

  /** Entries in one state, in arrival order. */
  list(state: EntryState): Entry[] {
    const found: Entry[] = [];
    for (const entry of this.#entries.values()) if (entry.state === state) found.push(entry);
    return found;
  }

  /** This instance's busiest tenants first. */
  tenants(limit: number): Array<{ tenant: string; priority: string; running: number; queued: number }> {
    const all = [...this.#tenants.values()].map(({ tenant, priority, running, queued }) => ({
      tenant,
      priority,
      running,
      queued,
    }));
    all.sort((a, b) => b.queued + b.running - (a.queued + a.running));
    all.length = Math.min(all.length, limit);
    return all;
  }

  #count(ticket: Ticket): TenantCount {
    const { priority, tenant } = ticket;
    let byTenant = this.#byPriority.get(priority);
    if (byTenant === undefined) {
      byTenant = new Map();
      this.#byPriority.set(priority, byTenant);
    }
    let count = byTenant.get(tenant);
    if (count === undefined) {
      count = { tenant, priority, running: 0, queued: 0 };
      byTenant.set(tenant, count);
      this.#tenants.add(count);
    }
    return count;
  }
}

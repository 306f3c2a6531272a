import type { Linked } from "./links.js";

/** Entries kept beyond twice the waiting tickets before a compaction (see {@link AgeOrder.push}). */
const SLACK = 64;

/**
 * One priority's waiting tickets, oldest first, for the aging rule, kept without links in the tickets:
 * the arrivals in order, and in front of them a stack of preempted tickets (each goes back to the
 * oldest end, the last one preempted first). A ticket leaves lazily: an entry whose ticket no longer
 * waits (its `queuedIn` is null) is dropped when it reaches the front, and the arrivals are compacted
 * once they hold more than twice the waiting tickets, so a ticket that started or left is not kept
 * alive for long. A ticket preempted after a start out of age order keeps its older entry too; both
 * name the same waiting ticket, which the stack already puts first, so the order stays the same.
 *
 * @example
 * const ages = new AgeOrder();
 * ages.push(ticket, lane.queued);
 * ages.oldest(); // ticket, while it waits
 */
export class AgeOrder {
  #arrivals: Array<Linked | undefined> = [];
  #head = 0;
  readonly #preempted: Linked[] = [];

  /** A newly waiting ticket, the newest; `waiting`: how many tickets of the priority wait now. */
  push(ticket: Linked, waiting: number): void {
    if (this.#arrivals.length > 2 * waiting + SLACK) this.#compact();
    this.#arrivals.push(ticket);
  }

  /** A preempted ticket waits again, as the oldest. */
  pushOldest(ticket: Linked): void {
    this.#preempted.push(ticket);
  }

  /** The oldest waiting ticket, or null when none waits. */
  oldest(): Linked | null {
    const preempted = this.#preempted;
    while (preempted.length > 0) {
      const top = preempted[preempted.length - 1]!;
      if (waits(top)) return top;
      preempted.pop();
    }
    const arrivals = this.#arrivals;
    while (this.#head < arrivals.length) {
      const first = arrivals[this.#head]!;
      if (waits(first)) return first;
      arrivals[this.#head++] = undefined;
    }
    this.clear();
    return null;
  }

  /** Forgets every entry (nothing waits any more). */
  clear(): void {
    this.#arrivals = [];
    this.#head = 0;
    this.#preempted.length = 0;
  }

  #compact(): void {
    const kept: Linked[] = [];
    for (let i = this.#head; i < this.#arrivals.length; i++) {
      const ticket = this.#arrivals[i]!;
      if (waits(ticket)) kept.push(ticket);
    }
    this.#arrivals = kept;
    this.#head = 0;
  }
}

/** True while `ticket` waits in a queue of the store (see `QueueLinks.queuedIn`). */
function waits(ticket: Linked): boolean {
  return ticket.queuedIn !== null;
}

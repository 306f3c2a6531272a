import type { HeapItem } from "../heap.js";
import type { Linked } from "./links.js";
import type { TenantState } from "./tenant-books.js";

/**
 * One tenant's waiting tickets within one priority: FIFO, retries at the front, O(1) removal of any
 * ticket through the ticket's own `prev`/`next` links (each waiting ticket points back to its queue
 * through `queuedIn`). Also a member of its lane's ring of tenants.
 */
export class TenantQueue implements HeapItem {
  readonly name: string;
  /**
   * The tenant's counts over all priorities, so that a pick needs no lookup by name. Set by the store
   * whenever the queue is taken into use (the books may have dropped an idle tenant's state since).
   */
  state: TenantState | null = null;
  weight: number;
  head: Linked | null = null;
  tail: Linked | null = null;
  size = 0;
  /** Cost units of this tenant's tickets that hold a slot now. */
  running = 0;
  /** In the turns: in the ring (`fairness: "requests"`) or the heap (`"tokens"`). */
  inRing = false;
  /** Starts this tenant may still take in the current round (deficit round robin). */
  credit = 0;
  /** Weighted tokens served in this priority, over its weight (`fairness: "tokens"`). */
  counter = 0;
  /** Position in its lane's heap of tenants (`fairness: "tokens"`), or -1. */
  heapIndex = -1;
  /** Out of the turns while its tenant is at its `maxConcurrency`. */
  parked = false;
  ringPrev: TenantQueue = this;
  ringNext: TenantQueue = this;

  constructor(name: string, weight: number) {
    this.name = name;
    this.weight = weight;
  }

  get idle(): boolean {
    return this.size === 0 && this.running === 0;
  }

  /** True when `ticket` waits in this queue. */
  has(ticket: Linked): boolean {
    return ticket.queuedIn === this;
  }

  pushBack(ticket: Linked): void {
    ticket.queuedIn = this;
    ticket.prev = this.tail;
    ticket.next = null;
    if (this.tail === null) this.head = ticket;
    else this.tail.next = ticket;
    this.tail = ticket;
    this.size++;
  }

  pushFront(ticket: Linked): void {
    ticket.queuedIn = this;
    ticket.prev = null;
    ticket.next = this.head;
    if (this.head === null) this.tail = ticket;
    else this.head.prev = ticket;
    this.head = ticket;
    this.size++;
  }

  remove(ticket: Linked): void {
    if (ticket.prev === null) this.head = ticket.next;
    else ticket.prev.next = ticket.next;
    if (ticket.next === null) this.tail = ticket.prev;
    else ticket.next.prev = ticket.prev;
    ticket.prev = null;
    ticket.next = null;
    ticket.queuedIn = null;
    this.size--;
  }
}

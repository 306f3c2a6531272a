import type { Ticket } from "../store.js";

/**
 * The in-memory store's scratch fields on a ticket: intrusive list links, so that queueing allocates
 * nothing. They are the memory store's alone (not part of the `Ticket` seam); the scheduler's task
 * record declares them so that every task keeps one shape, and a foreign ticket gets them on first use.
 */
export interface QueueLinks {
  /** Neighbours in its tenant's queue. */
  prev: Linked | null;
  next: Linked | null;
  /**
   * The tenant queue it waits in (any object of the store's choosing), or null. Also what tells the
   * priority's age order (`AgeOrder`) whether the ticket still waits.
   */
  queuedIn: object | null;
}

/** A ticket as the memory store holds it. */
export type Linked = Ticket & QueueLinks;

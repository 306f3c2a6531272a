import type { Lane } from "./lane.js";
import type { Linked } from "./links.js";

/** The picker's choice: which priority starts next, and which of its tickets (reused between picks). */
export interface Choice {
  lane: Lane | null;
  ticket: Linked | null;
  /** Chosen by the aging bound rather than by weight and tenant turn. */
  aged: boolean;
}

/** Whether `ticket` of `lane` may take a slot now (all limits and other priorities' reserves). */
export interface Fits {
  fits(lane: Lane, ticket: Linked): boolean;
}

/**
 * The picking rule, kept small enough to be written again in Lua for a shared store:
 * 1. aging: a priority is starved when it has had a ticket waiting, and no start, for `maxWaitMs`
 *    (measured from the later of its oldest ticket's arrival and its last start). Among starved
 *    priorities whose oldest ticket fits, the one starved longest (ties to the priority configured
 *    first) starts that oldest ticket. So every priority gets at least one start per `maxWaitMs` while
 *    slots turn over, and a deep backlog, all of it older than `maxWaitMs`, cannot take every slot;
 * 2. otherwise stride scheduling: among priorities with a ticket that fits, the lowest `pass` (ties to the
 *    priority configured first) starts its tenant turn's ticket.
 * Cost per pick is O(k) in the number of configured priorities and O(1) in queue length and tenants.
 * `now` is needed by the aging rule only: `undefined` when no priority has a `maxWaitMs` (rule 1 could
 * never choose), so that a pick that finds nothing costs no clock read.
 */
export function pick(lanes: readonly Lane[], now: number | undefined, fits: Fits, out: Choice): boolean {
  return (now !== undefined && pickAged(lanes, now, fits, out)) || pickByStride(lanes, fits, out);
}

/** Rule 1 alone: the starved priority's oldest ticket, if some priority is starved and it fits. */
function pickAged(lanes: readonly Lane[], now: number, fits: Fits, out: Choice): boolean {
  let aged: Lane | null = null;
  let agedTicket: Linked | null = null;
  let agedSince = Number.POSITIVE_INFINITY;
  for (const lane of lanes) {
    const oldest = lane.oldest;
    if (oldest === null) continue;
    const since = Math.max(oldest.enqueuedAt, lane.lastStartAt);
    if (now - since < lane.config.maxWaitMs || since >= agedSince || !fits.fits(lane, oldest)) continue;
    aged = lane;
    agedTicket = oldest;
    agedSince = since;
  }
  return aged !== null && choose(out, aged, agedTicket!, true);
}

/** Rule 2 alone: the stride pick among priorities whose tenant turn's ticket fits. */
function pickByStride(lanes: readonly Lane[], fits: Fits, out: Choice): boolean {
  let best: Lane | null = null;
  let bestLinked: Linked | null = null;
  for (const lane of lanes) {
    const ticket = lane.peek();
    if (ticket === null || (best !== null && lane.pass >= best.pass) || !fits.fits(lane, ticket)) continue;
    best = lane;
    bestLinked = ticket;
  }
  return best === null ? false : choose(out, best, bestLinked!, false);
}

function choose(out: Choice, lane: Lane, ticket: Linked, aged: boolean): true {
  out.lane = lane;
  out.ticket = ticket;
  out.aged = aged;
  return true;
}

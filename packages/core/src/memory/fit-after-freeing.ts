import type { StoreConfig, Ticket } from "../store.js";
import type { Lane } from "./lane.js";
import type { TenantState } from "./tenant-books.js";

/** The store-wide counts a fit is judged on. */
export interface Totals {
  /** Cost units running. */
  readonly running: number;
  /** Estimated tokens of every running ticket. */
  readonly tokensInFlight: number;
  /** Slots held back for priorities running below their `reserved`. */
  readonly reservedIdle: number;
}

/** One side of the question: a ticket, its priority's lane and its tenant's counts. */
export interface Placed {
  readonly ticket: Ticket;
  readonly lane: Lane;
  readonly state: TenantState;
}

/**
 * Whether `arrival` (waiting) would fit once `victim` (running) let go of its slot: the same limits as
 * a start checks (the total and the other priorities' idle reserves, the priority's cap, the tenant's
 * `maxConcurrency`, the token budget), on the counts as they would be without the victim. O(1).
 *
 * @example
 * fitsAfterFreeing(config, totals, { ticket, lane, state }, { ticket: victim, lane: victimLane, state: victimState });
 */
export function fitsAfterFreeing(
  config: StoreConfig,
  totals: Totals,
  arrival: Placed,
  victim: Placed,
): boolean {
  const { cost } = arrival.ticket;
  const freed = victim.ticket.cost;
  const sameLane = victim.lane === arrival.lane;
  const laneRunning = arrival.lane.running - (sameLane ? freed : 0);
  const victimLaneRunning = victim.lane.running - freed;
  // The victim's priority may fall below its reserve: its idle reserve then grows by the difference.
  const reservedIdle =
    totals.reservedIdle -
    idleReserve(victim.lane, victim.lane.running) +
    idleReserve(victim.lane, victimLaneRunning);
  const reservedByOthers = reservedIdle - idleReserve(arrival.lane, laneRunning);
  const running = totals.running - freed;
  const tenantRunning = arrival.state.running - (victim.state === arrival.state ? freed : 0);
  const tokens = arrival.ticket.tokens ?? 0;
  const tokensInFlight = totals.tokensInFlight - (victim.ticket.tokens ?? 0);
  return (
    laneRunning + cost <= arrival.lane.config.maxConcurrency &&
    running + cost + reservedByOthers <= config.maxConcurrency &&
    tenantRunning + cost <= arrival.state.quota.maxConcurrency &&
    (tokensInFlight + tokens <= config.maxTokensInFlight || running === 0)
  );
}

function idleReserve(lane: Lane, running: number): number {
  return Math.max(0, lane.config.reserved - running);
}

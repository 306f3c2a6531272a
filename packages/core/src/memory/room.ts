import type { StoreConfig, Ticket } from "../store.js";
import type { Totals } from "./fit-after-freeing.js";
import type { Lane } from "./lane.js";
import type { Linked } from "./links.js";
import type { Fits } from "./picker.js";
import type { TenantState } from "./tenant-books.js";
import type { TenantQueue } from "./tenant-queue.js";

/**
 * The store-wide counts a start is judged on, and the judgement: whether a ticket fits now, by every
 * limit at once. One object per store, asked by the picker through a method (not a closure per store),
 * so the picker's compiled code holds nothing of one store and survives the next one.
 *
 * @example
 * const room = new Room();
 * room.configure(config, lanes, books.limited);
 * if (room.fits(lane, ticket)) room.take(lane, ticket.cost, ticket.tokens ?? 0);
 */
export class Room implements Totals, Fits {
  /** Cost units running. */
  running = 0;
  /** Estimated tokens of every running ticket. */
  tokensInFlight = 0;
  /** Slots held back for priorities running below their `reserved`. */
  reservedIdle = 0;
  /** Some tenant has a quota (see `TenantBooks.limited`); without one, tenant checks are skipped. */
  limited = false;
  maxConcurrency = 0;
  maxTokensInFlight = Number.POSITIVE_INFINITY;

  configure(config: StoreConfig, lanes: readonly Lane[], limited: boolean): void {
    this.maxConcurrency = config.maxConcurrency;
    this.maxTokensInFlight = config.maxTokensInFlight;
    this.limited = limited;
    this.reservedIdle = lanes.reduce((sum, lane) => sum + idleReserve(lane), 0);
  }

  /** Whether `ticket`, waiting in `lane`, may start now (its tenant's counts through its queue). */
  fits(lane: Lane, ticket: Linked): boolean {
    return this.fitsFor(lane, ticket, (ticket.queuedIn as TenantQueue).state!);
  }

  /**
   * All limits at once: the total, the priority's cap, the slots other priorities keep in reserve, the
   * tenant's `maxConcurrency` and the token budget (which a lone oversize ticket may exceed).
   */
  fitsFor(lane: Lane, ticket: Ticket, state: TenantState): boolean {
    const { cost } = ticket;
    const reservedByOthers = this.reservedIdle - idleReserve(lane);
    return (
      lane.running + cost <= lane.config.maxConcurrency &&
      this.running + cost + reservedByOthers <= this.maxConcurrency &&
      (!this.limited || state.hasRoom(cost)) &&
      // A ticket larger than the whole budget starts only when nothing at all runs, and so runs alone.
      (this.tokensInFlight + (ticket.tokens ?? 0) <= this.maxTokensInFlight || this.running === 0)
    );
  }

  /** `cost` units and `tokens` of `lane` start, keeping the idle reserves right. */
  take(lane: Lane, cost: number, tokens: number): void {
    this.reservedIdle -= idleReserve(lane);
    lane.running += cost;
    this.reservedIdle += idleReserve(lane);
    this.running += cost;
    this.tokensInFlight += tokens;
  }

  /**
   * `cost` units and `tokens` of `lane` stop: {@link take} in reverse. A method of its own rather than
   * `take` with negated counts, because `-0` (a ticket of no tokens) would turn the integer counts into
   * floating-point fields, which V8 then rebuilds (and recompiles for) in every fresh store.
   */
  free(lane: Lane, cost: number, tokens: number): void {
    this.reservedIdle -= idleReserve(lane);
    lane.running -= cost;
    this.reservedIdle += idleReserve(lane);
    this.running -= cost;
    this.tokensInFlight -= tokens;
  }
}

function idleReserve(lane: Lane): number {
  return Math.max(0, lane.config.reserved - lane.running);
}

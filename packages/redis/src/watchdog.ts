import { unrenewed } from "./errors.js";
import type { Entry } from "./ledger.js";
import type { StoreState } from "./state.js";

/** What the watchdog needs from the link to Redis. */
export interface WatchdogLink {
  /** Redis counts as down: calls fail closed, or the local fallback takes over. */
  markDown(error: unknown): void;
}

/** Why the watchdog stopped this instance's Redis leases. */
export function leaseUnrenewed(leaseMs: number): Error {
  return new Error(
    `No renewal of this instance's leases reached Redis in time (leaseMs ${leaseMs} ms): ` +
      "the others may soon take its slots, so it stops using them",
  );
}

/**
 * The local guard against a partition. Every renewal of this instance's leases that succeeds re-arms
 * it for `guardMs` before those leases can lapse in Redis (the renewal was sent at `sentAt`, so Redis
 * set them to expire no earlier than `sentAt + leaseMs`). When it fires, no renewal got through in
 * time: the instance may be cut off while the others still reach Redis and will take its slots once
 * the leases lapse. So before that happens it stops granting (Redis counts as down, grants that
 * arrive late are refused) and stops its tasks: failing closed, every running task is revoked (its
 * signal aborts); with `onStoreError: "local"`, only those beyond the local share of the limit.
 *
 * @example
 * const watchdog = new LeaseWatchdog(state, link, 200);
 * watchdog.renewed(sentAt); // after each heartbeat that renewed every lease
 */
export class LeaseWatchdog {
  readonly #state: StoreState;
  readonly #link: WatchdogLink;
  readonly #guardMs: number;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(state: StoreState, link: WatchdogLink, guardMs: number) {
    this.#state = state;
    this.#link = link;
    this.#guardMs = guardMs;
  }

  /** A call sent at `sentAt` (`performance.now()`) renewed every lease of this instance. */
  renewed(sentAt: number): void {
    this.stop();
    const left = sentAt + this.#state.config.leaseMs - this.#guardMs - performance.now();
    if (left <= 0) {
      this.#fire(); // the reply came too late to count: the leases it renewed may lapse any moment
      return;
    }
    this.#state.leaseExpired = false;
    const due = performance.now() + left;
    this.#timer = setTimeout(() => this.#fire(performance.now() - due > this.#guardMs), left);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /**
   * No renewal got through in time. `late`: the timer itself fired late (this instance's event loop
   * stalled): the heartbeat that was due in the same turn is already on its way, and its answer, not
   * the watchdog, says whether Redis can be reached; the tasks are stopped all the same.
   */
  #fire(late = false): void {
    this.#timer = null;
    const state = this.#state;
    if (state.detached) return;
    state.leaseExpired = true;
    const error = leaseUnrenewed(state.config.leaseMs);
    if (!late || state.config.onStoreError === "local") this.#link.markDown(error);
    const running = state.ledger.list("granted");
    const keep = state.fallback === null ? 0 : state.localOptions().maxConcurrency;
    state.revoke(beyond(running, keep), (entry) => unrenewed(entry.ticket, error));
  }
}

/** The entries past the first ones whose costs fit in `limit` (the newest go first). */
function beyond(entries: readonly Entry[], limit: number): Entry[] {
  let used = 0;
  let kept = 0;
  for (const entry of entries) {
    if (used + entry.ticket.cost > limit) break;
    used += entry.ticket.cost;
    kept++;
  }
  return entries.slice(kept);
}

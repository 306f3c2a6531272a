import { leaseLapsed } from "./errors.js";
import type { Grants } from "./grants.js";
import type { Entry } from "./ledger.js";
import { type Reply, Status } from "./replies.js";
import type { StoreState } from "./state.js";
import { LeaseWatchdog, type WatchdogLink } from "./watchdog.js";

/** The tick script's status when this instance was not registered (Redis lost or purged it). */
const TICK_LOST = 1;

/** What the heartbeat needs from the link to Redis. */
export interface HeartbeatLink extends WatchdogLink {
  /** One reconnection attempt; resolves true once Redis is back. */
  connect(): Promise<boolean>;
  /** A reconnection attempt failed: the outage is confirmed. */
  unreachable(): void;
  /** Redis lost this instance's state: configure again, then reconcile. */
  resync(): void;
}

/**
 * The store's one timer, every `min(pollMs, leaseMs / 3)`: while Redis is up, a heartbeat that renews
 * the instance and the leases of its running tasks and drains its inbox; while down, a reconnection
 * attempt. Heartbeats are paced from when the previous one was sent, so after a stall the overdue one
 * goes out at once. What a heartbeat learns about leases is acted on here: a lease that lapsed is
 * revoked (the task is stopped), one that Redis lost while it was renewed in time is adopted.
 */
export class Heartbeat {
  /** Between heartbeats, and between reconnection attempts. */
  readonly intervalMs: number;
  readonly #state: StoreState;
  readonly #grants: Grants;
  readonly #link: HeartbeatLink;
  readonly #watchdog: LeaseWatchdog;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /**
   * `performance.now()` when the last call that renewed every lease of this instance was sent (it then
   * succeeded). No lease of a running task can have lapsed in Redis before `#renewedAt + leaseMs`.
   */
  #renewedAt = performance.now();

  constructor(state: StoreState, grants: Grants, link: HeartbeatLink) {
    this.#state = state;
    this.#grants = grants;
    this.#link = link;
    const { pollMs, leaseMs } = state.config;
    this.intervalMs = Math.max(10, Math.min(pollMs, Math.floor(leaseMs / 3)));
    this.#watchdog = new LeaseWatchdog(state, link, Math.min(this.intervalMs, Math.floor(leaseMs / 5)));
  }

  /** (Re)arms the timer; nothing while the first connection is being made or after detach. */
  schedule(delay = this.intervalMs): void {
    if (this.#state.detached || this.#state.starting !== null) return;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#tick(), delay);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#watchdog.stop();
  }

  /**
   * A call sent at `sentAt` (`performance.now()`) renewed every lease of this instance (or found none
   * to renew): the leases hold until `sentAt + leaseMs`, and the watchdog is armed to act before then.
   */
  renewed(sentAt: number): void {
    this.#renewedAt = sentAt;
    this.#watchdog.renewed(sentAt);
  }

  /** Renews the heartbeat and the leases of the running tasks, and drains the inbox. */
  beat(): Promise<void> {
    const sentAt = performance.now();
    const running = this.#state.ledger.list("granted").map((entry) => entry.ticket);
    return this.#state.remote.tick(running).then(
      (reply) => this.#ticked(reply, sentAt),
      (error: unknown) => this.#link.markDown(error),
    );
  }

  /** True when a lease of this instance may have lapsed: no renewal of it was sent within `leaseMs`. */
  lapsed(): boolean {
    return performance.now() - this.#renewedAt > this.#state.config.leaseMs;
  }

  /**
   * After an outage or a loss of state, the running tasks hold leases again. Those that ran on the local
   * fallback, or whose leases were renewed within `leaseMs`, are adopted (counted without a limit
   * check: they already run); otherwise a heartbeat renews what Redis still holds and revokes the rest.
   */
  reclaim(running: readonly Entry[], wasLocal: boolean): void {
    if (!wasLocal && this.lapsed()) {
      void this.beat();
      return;
    }
    const sentAt = performance.now();
    this.#adopt(running, () => this.renewed(sentAt));
  }

  #tick(): void {
    this.#timer = null;
    if (this.#state.detached) return;
    if (!this.#state.up) {
      void this.#link.connect().then((connected) => {
        if (!connected) this.#link.unreachable();
        if (this.#timer === null) this.schedule();
      });
      return;
    }
    const sentAt = performance.now();
    void this.beat().then(() => {
      if (this.#timer === null) this.schedule(Math.max(0, sentAt + this.intervalMs - performance.now()));
    });
  }

  #ticked(reply: Reply, sentAt: number): void {
    if (reply.status === Status.UNCONFIGURED) {
      this.#link.resync();
      return;
    }
    const lapsed = this.lapsed();
    this.renewed(sentAt);
    this.#grants.absorbDrained(reply);
    const { ledger, remote } = this.#state;
    const missing = reply.extra
      .map((id) => ledger.get(remote.seqOf(id) ?? -1))
      .filter((entry): entry is Entry => entry !== undefined && entry.state === "granted");
    if (missing.length > 0 && lapsed) {
      this.#revoke(missing);
    } else if (missing.length > 0) {
      this.#adopt(missing); // renewed in time, yet gone: Redis lost them (a restart or failover)
    }
    const [victim, by] = reply.victim ?? [];
    if (victim !== undefined && by !== undefined) this.#grants.victim(victim, by); // if pub/sub lost it
    if (reply.status === TICK_LOST) this.#link.resync(); // queued tickets may have been purged
  }

  /** Records running tasks as leases again, counted without a limit check. */
  #adopt(entries: readonly Entry[], adopted?: () => void): void {
    this.#state.remote.adopt(entries.map((entry) => entry.ticket)).then(
      (reply) => {
        adopted?.();
        this.#grants.absorb(reply);
      },
      (error: unknown) => this.#link.markDown(error),
    );
  }

  /**
   * The leases of running tasks lapsed (this instance stalled, or could not reach Redis, for longer than
   * `leaseMs`) and Redis took the slots back: they may be another task's by now. The scheduler aborts
   * each task's signal and forgets its slot, so that the global limit holds again.
   */
  #revoke(entries: readonly Entry[]): void {
    const { leaseMs } = this.#state.config;
    this.#state.revoke(entries, (entry) => leaseLapsed(entry.ticket, leaseMs));
  }
}

import { evicting, refusedAgain, storeDown, unavailable, unknownPriority } from "./errors.js";
import { LocalFallback } from "./fallback.js";
import type { Grants } from "./grants.js";
import { Heartbeat, type HeartbeatLink } from "./heartbeat.js";
import type { Entry } from "./ledger.js";
import { REMOVE_CHUNK } from "./remote.js";
import { enqueueStatus, Status } from "./replies.js";
import type { StoreState } from "./state.js";

/**
 * Whether Redis can be reached, and what changes when that changes. Going down: the local fallback
 * takes over (`"local"`), or calls fail (`"fail-closed"`) and, once a reconnection attempt confirms
 * the outage, the tickets still waiting are dropped. Coming back (or finding that Redis lost this
 * instance's state): configure again and reconcile, so that Redis agrees with this instance.
 */
export class Link implements HeartbeatLink {
  readonly heartbeat: Heartbeat;
  readonly #state: StoreState;
  readonly #grants: Grants;
  #connecting: Promise<boolean> | null = null;
  #resyncing = false;
  /** Why Redis counts as down (the error that marked it down), for the errors of dropped tickets. */
  #downCause: unknown = null;
  /** The eviction policy was checked (once per store). */
  #policyChecked = false;

  constructor(state: StoreState, grants: Grants) {
    this.#state = state;
    this.#grants = grants;
    this.heartbeat = new Heartbeat(state, grants, this);
  }

  /**
   * The first connection, once `ready` settles (both connections up, or given up on). Resolves when
   * Redis is up or the local fallback serves; rejects when failing closed without Redis.
   */
  start(ready: Promise<unknown>): Promise<void> {
    const first = ready
      .then(() => this.connect())
      .then((connected) => {
        this.#state.starting = null;
        this.heartbeat.schedule();
        if (!connected && this.#state.config.onStoreError === "local") this.#enterFallback();
        this.#state.report();
        if (!connected && this.#state.config.onStoreError !== "local") {
          throw storeDown(this.#state.address, this.#state.lastError);
        }
      });
    this.#state.starting = first.catch(() => {});
    return first;
  }

  /** One connection attempt at a time; resolves true once Redis is up and reconciled. */
  connect(): Promise<boolean> {
    this.#connecting ??= this.#tryConnect().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  /** A call failed or the connection closed: Redis counts as down until a reconnection succeeds. */
  markDown(error: unknown): void {
    const state = this.#state;
    if (!state.up) return;
    state.up = false;
    this.#downCause = error;
    state.noteError(error);
    state.config.onError(error);
    if (state.config.onStoreError === "local") this.#enterFallback();
    state.report();
    this.heartbeat.schedule();
  }

  /**
   * A reconnection attempt failed: the outage is real, not one slow reply. Failing closed, the tickets
   * still waiting here are rejected now (STORE_UNAVAILABLE, retry after the next reconnection attempt)
   * rather than at their queue timeout; they are taken out of Redis once it is back.
   */
  unreachable(): void {
    const state = this.#state;
    if (state.config.onStoreError !== "fail-closed" || state.detached || state.host === null) return;
    for (const entry of state.ledger.list("waiting")) {
      state.dropped.push(state.remote.id(entry.ticket));
      const error = unavailable(entry.ticket, state.address, this.#downCause, this.heartbeat.intervalMs);
      this.#drop(entry, error);
    }
  }

  /** Redis lost this instance's state (restart, purge): configure again, then reconcile. */
  resync(): void {
    if (this.#resyncing || !this.#state.up) return;
    this.#resyncing = true;
    this.#hello().then(
      () => {
        this.#resyncing = false;
        this.#reconcile();
      },
      (error: unknown) => {
        this.#resyncing = false;
        this.markDown(error);
      },
    );
  }

  /** Redis is out of reach: a local in-memory store takes over under the local limit. */
  #enterFallback(): void {
    const state = this.#state;
    if (state.fallback !== null || state.host === null || state.detached) return;
    state.fallback = new LocalFallback(state.ledger, state.host, state.localOptions());
    state.fallback.takeOver();
  }

  async #tryConnect(): Promise<boolean> {
    const state = this.#state;
    if (state.up) return true;
    if (state.detached || state.host === null || !state.remote.ready) return false;
    const sentAt = performance.now();
    try {
      await this.#hello();
    } catch (error) {
      state.noteError(error);
      state.config.onError(error);
      return false;
    }
    if (state.detached) return false;
    state.up = true;
    state.lastError = null;
    if (state.ledger.list("granted").length === 0) this.heartbeat.renewed(sentAt); // nothing to reclaim
    this.#reconcile();
    state.report();
    return true;
  }

  /** Loads the scripts, writes the configuration and registers this instance. */
  async #hello(): Promise<void> {
    const { remote, ledger, options } = this.#state;
    await remote.load();
    const runs = ledger.list("granted").length > 0;
    this.#grants.absorb(await remote.configure(options!, runs, !this.heartbeat.lapsed()));
    if (!this.#policyChecked) {
      this.#policyChecked = true;
      void remote.evictionPolicy().then((policy) => {
        if (policy?.startsWith("allkeys-")) this.#state.config.onError(evicting(policy));
      });
    }
  }

  /**
   * Makes Redis agree with this instance again: its running tasks hold leases (see
   * {@link Heartbeat.reclaim}), its waiting tickets are queued (sent again; a repeat changes nothing),
   * the tickets given up meanwhile leave Redis, and the local fallback, if any, is dropped. Everything is
   * sent before any later call.
   */
  #reconcile(): void {
    const state = this.#state;
    const wasLocal = state.fallback !== null;
    state.fallback?.handBack();
    state.fallback = null;
    this.#removeDropped();
    const running = state.ledger.list("granted");
    const pending = state.ledger.list("waiting");
    if (running.length > 0) this.heartbeat.reclaim(running, wasLocal);
    for (const entry of pending) this.#resend(entry);
  }

  #resend(entry: Entry): void {
    const { remote, config } = this.#state;
    const id = remote.id(entry.ticket);
    void remote.enqueue(
      entry.ticket,
      (raw) => {
        const status = enqueueStatus(raw).code;
        if (status === Status.UNREGISTERED || status === Status.UNCONFIGURED) {
          this.resync();
        } else if (status === Status.GRANTED || status === Status.ALREADY_GRANTED) {
          if (!this.#grants.deliver(entry.ticket.seq)) this.#grants.handBack([id]);
        } else if (
          status === Status.FULL ||
          status === Status.TENANT_FULL ||
          status === Status.RATE_LIMITED
        ) {
          this.#drop(entry, refusedAgain(entry.ticket));
        } else if (status < 0) {
          this.#drop(entry, unknownPriority(entry.ticket, config.prefix));
        }
      },
      (error: unknown) => this.markDown(error),
    );
  }

  /** The store gives up a waiting ticket on its own: the scheduler rejects its caller with `error`. */
  #drop(entry: Entry, error: unknown): void {
    const state = this.#state;
    if (state.ledger.of(entry.ticket) !== entry || entry.state !== "waiting") return;
    state.forget(entry);
    state.host?.fail(entry.ticket, error);
  }

  /** Takes the tickets given up during an outage out of Redis's queues (a repeat changes nothing). */
  #removeDropped(): void {
    const state = this.#state;
    const ids = state.dropped;
    if (ids.length === 0) return;
    state.dropped = [];
    for (let i = 0; i < ids.length; i += REMOVE_CHUNK) {
      const chunk = ids.slice(i, i + REMOVE_CHUNK);
      void state.remote.remove(
        chunk,
        () => {},
        (error: unknown) => {
          state.dropped.push(...chunk);
          this.markDown(error);
        },
      );
    }
  }
}

import {
  type EnqueueResult,
  ErrorCode,
  type MaybePromise,
  type ResolvedOptions,
  SchedulerError,
  type Store,
  type StoreHost,
  type StoreSnapshot,
  type Ticket,
} from "@llm-scheduler/core";
import { openClient, openSubscriber, settledWithin, whenReady } from "./connection.js";
import { LocalFallback, localOptions } from "./fallback.js";
import { grantChannel } from "./keys.js";
import { type Entry, Ledger, LOCAL_QUEUED, PENDING, RUNNING } from "./ledger.js";
import {
  type RedisClient,
  type RedisStoreOptions,
  type ResolvedRedisOptions,
  resolveRedisOptions,
} from "./options.js";
import { Remote } from "./remote.js";
import { type Counts, NO_COUNTS, type Reply, Status } from "./replies.js";

/** Where the store stands: talking to Redis, running on the local fallback, or neither. */
export type RedisStoreStatus = "connecting" | "connected" | "local" | "unavailable" | "closed";

const REMOVE_CHUNK = 1_000;
/** The tick script's status when this instance was not registered (Redis lost or purged it). */
const TICK_LOST = 1;

/**
 * A {@link Store} that keeps the queues, the running counts and the picker's state in Redis, so that
 * every gateway instance sharing a `prefix` obeys one global limit and one global order. Each decision
 * is one Lua script; slots are leases renewed while tasks run; grants reach the waiting instance by
 * pub/sub, with a slow safety poll. One store serves one scheduler.
 *
 * @example
 * const store = new RedisStore({ url: process.env.REDIS_URL, prefix: "llm:", leaseMs: 10_000 });
 * const scheduler = createScheduler({ maxConcurrency: 32, store });
 * // ... on shutdown:
 * await scheduler.close();
 * await store.close();
 */
export class RedisStore implements Store {
  /** This instance's id in Redis (its tickets are `<instanceId>:<seq>`). */
  readonly instanceId: string;
  readonly #config: ResolvedRedisOptions;
  readonly #client: RedisClient;
  readonly #ownsClient: boolean;
  readonly #remote: Remote;
  readonly #ledger = new Ledger();
  /** Seqs delivered by pub/sub since the last drain of the inbox (which then repeats them). */
  readonly #heard = new Set<number>();
  readonly #tickMs: number;
  #subscriber: RedisClient | null = null;
  #host: StoreHost | null = null;
  #options: ResolvedOptions | null = null;
  #up = false;
  #firstConnect: Promise<void> | null = null;
  #connecting: Promise<boolean> | null = null;
  #resyncing = false;
  #fallback: LocalFallback | null = null;
  #counts: Counts = NO_COUNTS;
  /** Why Redis counts as down (the error that marked it down), for the errors of dropped tickets. */
  #downCause: unknown = null;
  /** Ids of tickets this instance gave up while Redis was down; removed from Redis when it is back. */
  #dropped: string[] = [];
  /**
   * `performance.now()` when the last call that renewed every lease of this instance was sent (it then
   * succeeded). No lease of a running task can have lapsed in Redis before `#renewedAt + leaseMs`.
   */
  #renewedAt = performance.now();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #detached = false;
  #closing: Promise<void> | null = null;
  readonly #onClientError = (error: unknown): void => this.#config.onError(error);
  readonly #onClientReady = (): void => {
    if (!this.#up) void this.#connect();
  };
  readonly #onClientClose = (): void => {
    this.#markDown(new Error("The connection to Redis closed"));
  };

  constructor(options: RedisStoreOptions = {}) {
    this.#config = resolveRedisOptions(options);
    this.instanceId = this.#config.instanceId;
    const { client, owned } = openClient(this.#config);
    this.#client = client;
    this.#ownsClient = owned;
    client.on("error", this.#onClientError);
    client.on("ready", this.#onClientReady);
    client.on("close", this.#onClientClose);
    this.#remote = new Remote(client, this.#config, (reply) => this.#absorb(reply));
    this.#tickMs = Math.max(10, Math.min(this.#config.pollMs, Math.floor(this.#config.leaseMs / 3)));
  }

  /** `connected`, `local` (Redis unreachable, local fallback), `unavailable` (fail-closed), … */
  get status(): RedisStoreStatus {
    if (this.#detached) return "closed";
    if (this.#up) return "connected";
    if (this.#fallback !== null) return "local";
    return this.#firstConnect !== null ? "connecting" : "unavailable";
  }

  attach(host: StoreHost, options: ResolvedOptions): Promise<void> {
    if (this.#host !== null || this.#detached) {
      throw new Error("A RedisStore serves one scheduler; create one store per scheduler.");
    }
    this.#host = host;
    this.#options = options;
    this.#remote.clock = host.clock;
    const channel = grantChannel(this.#config.prefix, this.instanceId);
    const { subscriber, subscribed } = openSubscriber(this.#client, channel, {
      message: (ids) => this.#heardGrants(ids),
      ready: () => this.#schedule(0), // grants published while it was away wait in the inbox
      error: this.#onClientError,
    });
    this.#subscriber = subscriber;
    const timeout = this.#config.commandTimeoutMs;
    const first = Promise.all([whenReady(this.#client, timeout), settledWithin(subscribed, timeout)])
      .then(() => this.#connect())
      .then((connected) => {
        this.#firstConnect = null;
        this.#schedule();
        if (connected) return;
        if (this.#config.onStoreError === "local") this.#enterFallback();
        else throw new Error("Redis is unavailable; the store fails closed until it is back");
      });
    this.#firstConnect = first.catch(() => {});
    return first;
  }

  configure(options: ResolvedOptions): MaybePromise<void> {
    this.#options = options;
    this.#fallback?.configure(this.#localOptions());
    if (!this.#up) return;
    return this.#remote.configure(options).then(
      (reply) => this.#absorb(reply),
      (error: unknown) => this.#failed(error),
    );
  }

  enqueue(ticket: Ticket): MaybePromise<EnqueueResult> {
    if (this.#up) return this.#enqueueRemote(this.#ledger.add(ticket));
    if (this.#fallback !== null) return this.#enqueueLocal(this.#ledger.add(ticket));
    if (this.#firstConnect !== null) return this.#firstConnect.then(() => this.enqueue(ticket));
    return Promise.reject(new Error("Redis is unavailable; the store fails closed until it is back"));
  }

  remove(ticket: Ticket): MaybePromise<boolean> {
    const entry = this.#ledger.of(ticket);
    if (entry === undefined || entry.state !== PENDING) return false;
    this.#forget(entry);
    if (!this.#up) {
      if (this.#fallback === null) this.#dropped.push(this.#remote.id(ticket)); // still queued in Redis
      return true;
    }
    return this.#remote.remove([this.#remote.id(ticket)]).then(
      (status) => {
        if (status === Status.UNCONFIGURED) this.#resync();
        return true;
      },
      (error: unknown) => {
        this.#markDown(error);
        return true; // a grant that still comes is handed straight back (see #deliver)
      },
    );
  }

  release(ticket: Ticket): MaybePromise<void> {
    const entry = this.#ledger.of(ticket);
    if (entry !== undefined) this.#forget(entry);
    if (!this.#up) return; // the lease lapses by itself
    return this.#releaseIds([this.#remote.id(ticket)]);
  }

  removeAll(): MaybePromise<Ticket[]> {
    const entries = this.#ledger.list(PENDING);
    for (const entry of entries) this.#forget(entry);
    const tickets = entries.map((entry) => entry.ticket);
    if (!this.#up || tickets.length === 0) return tickets;
    const calls: Promise<void>[] = [];
    for (let i = 0; i < tickets.length; i += REMOVE_CHUNK) {
      const ids = tickets.slice(i, i + REMOVE_CHUNK).map((ticket) => this.#remote.id(ticket));
      calls.push(this.#remote.remove(ids).then(() => {}));
    }
    return Promise.all(calls).then(
      () => tickets,
      (error: unknown) => {
        this.#markDown(error);
        return tickets;
      },
    );
  }

  depth(priority: string): number {
    if (this.#fallback !== null) return this.#fallback.depth(priority);
    return this.#counts.priorities[priority]?.queued ?? 0;
  }

  /** Global counts as Redis last reported them (exact after this instance's own calls); tenants local. */
  snapshot(tenantLimit: number): StoreSnapshot {
    if (this.#fallback !== null) return this.#fallback.snapshot(tenantLimit);
    const { running, queued, priorities } = this.#counts;
    return { running, queued, priorities, tenants: this.#ledger.tenants(tenantLimit) };
  }

  async detach(): Promise<void> {
    if (this.#detached) return;
    this.#detached = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const subscriber = this.#subscriber;
    this.#subscriber = null;
    subscriber?.removeAllListeners("message");
    subscriber?.disconnect();
    this.#fallback = null;
    if (this.#up) {
      this.#up = false;
      await this.#remote.leave().catch(this.#onClientError);
    }
    this.#host = null;
  }

  /** Detaches (if a scheduler has not already) and ends the connection the store opened itself. */
  close(): Promise<void> {
    this.#closing ??= this.detach().then(async () => {
      this.#client.off("ready", this.#onClientReady);
      this.#client.off("close", this.#onClientClose);
      if (!this.#ownsClient) {
        this.#client.off("error", this.#onClientError);
        return;
      }
      await this.#client.quit().catch(() => this.#client.disconnect());
    });
    return this.#closing;
  }

  #enqueueRemote(entry: Entry): Promise<EnqueueResult> {
    return this.#remote.enqueue(entry.ticket).then(
      (status) => this.#enqueued(entry, status),
      (error: unknown) => this.#enqueueFailed(entry, error),
    );
  }

  /** The script's answer for one ticket; the grants its call made were delivered just before. */
  #enqueued(entry: Entry, status: number): EnqueueResult {
    if (status === Status.UNREGISTERED || status === Status.UNCONFIGURED) {
      this.#resync(); // sends every waiting ticket again, this one included
      return "queued";
    }
    const current = this.#ledger.of(entry.ticket) === entry;
    if (status === Status.FULL || status === Status.UNKNOWN_PRIORITY) {
      this.#ledger.delete(entry);
      if (status === Status.FULL) return "full";
      throw this.#unknownPriority(entry.ticket);
    }
    if (status === Status.GRANTED || status === Status.ALREADY_GRANTED) {
      if (!current) {
        this.#handBack([this.#remote.id(entry.ticket)]); // removed while the call was out
        return "queued";
      }
      if (entry.state === PENDING) {
        this.#ledger.start(entry);
        return "granted";
      }
    }
    return "queued";
  }

  #enqueueFailed(entry: Entry, error: unknown): EnqueueResult {
    this.#markDown(error); // in "local" mode this moves every waiting ticket, this one too, to the fallback
    if (this.#ledger.of(entry.ticket) !== entry || entry.state !== PENDING) return "queued";
    if (entry.local === LOCAL_QUEUED) return "queued"; // the local fallback took it over
    this.#ledger.delete(entry);
    this.#dropped.push(this.#remote.id(entry.ticket)); // the call may have reached Redis (a timeout)
    if (this.#fallback !== null) return "full";
    throw error;
  }

  #enqueueLocal(entry: Entry): EnqueueResult {
    const result = this.#fallback!.enqueue(entry);
    if (result === "full") this.#ledger.delete(entry);
    return result;
  }

  /** The entry leaves: out of the ledger and out of the local fallback. */
  #forget(entry: Entry): void {
    this.#ledger.delete(entry);
    this.#fallback?.forget(entry);
  }

  #releaseIds(ids: readonly string[]): Promise<void> {
    return this.#remote.release(ids).then(
      (status) => {
        if (status === Status.UNCONFIGURED) this.#resync();
      },
      (error: unknown) => this.#failed(error),
    );
  }

  /** Gives back slots that nobody here wants (granted after their ticket was removed or abandoned). */
  #handBack(ids: readonly string[]): void {
    this.#releaseIds(ids).catch(this.#onClientError);
  }

  /** A call failed: Redis counts as down; "fail-closed" passes the error on. */
  #failed(error: unknown): void {
    this.#markDown(error);
    if (this.#config.onStoreError === "fail-closed") throw error;
  }

  /** Takes in a script's counts and delivers the grants it made to this instance. */
  #absorb(reply: Reply, skip?: ReadonlySet<number>): void {
    if (reply.counts !== undefined) this.#counts = reply.counts;
    const orphans: string[] = [];
    for (const id of reply.granted) {
      const seq = this.#remote.seqOf(id);
      if (seq !== undefined && skip?.has(seq) !== true && !this.#deliver(seq)) orphans.push(id);
    }
    if (orphans.length > 0) this.#handBack(orphans);
  }

  #heardGrants(message: string): void {
    const orphans: string[] = [];
    for (const id of message.split(",")) {
      const seq = this.#remote.seqOf(id);
      if (seq === undefined) continue;
      this.#heard.add(seq);
      if (!this.#deliver(seq)) orphans.push(id);
    }
    if (orphans.length > 0 && this.#up) this.#handBack(orphans);
  }

  /**
   * Redis granted one of this instance's tickets: start it, exactly once. False when nobody waits for
   * it any more (removed, abandoned, or already released): the caller hands the slot back.
   */
  #deliver(seq: number): boolean {
    const entry = this.#ledger.get(seq);
    if (entry === undefined || this.#host === null) return false;
    if (entry.state === RUNNING) return true;
    this.#fallback?.forget(entry); // it waited in the fallback too
    this.#ledger.start(entry);
    this.#host.grant(entry.ticket);
    return true;
  }

  #localOptions(): ResolvedOptions {
    const { expectedInstances, localMaxQueue } = this.#config;
    return localOptions(this.#options!, expectedInstances, localMaxQueue);
  }

  #markDown(error: unknown): void {
    if (!this.#up) return;
    this.#up = false;
    this.#downCause = error;
    this.#config.onError(error);
    if (this.#config.onStoreError === "local") this.#enterFallback();
    this.#schedule();
  }

  /** Redis is out of reach: a local in-memory store takes over under the local limit. */
  #enterFallback(): void {
    if (this.#fallback !== null || this.#host === null || this.#detached) return;
    this.#fallback = new LocalFallback(this.#ledger, this.#host, this.#localOptions());
    this.#fallback.takeOver();
  }

  #connect(): Promise<boolean> {
    this.#connecting ??= this.#tryConnect().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  async #tryConnect(): Promise<boolean> {
    if (this.#up) return true;
    if (this.#detached || this.#host === null || !this.#remote.ready) return false;
    try {
      await this.#hello();
    } catch (error) {
      this.#config.onError(error);
      return false;
    }
    if (this.#detached) return false;
    this.#up = true;
    this.#reconcile();
    return true;
  }

  /** Loads the scripts, writes the configuration and registers this instance. */
  async #hello(): Promise<void> {
    await this.#remote.load();
    this.#absorb(await this.#remote.configure(this.#options!));
  }

  /** Redis lost this instance's state (restart, purge): configure again, then reconcile. */
  #resync(): void {
    if (this.#resyncing || !this.#up) return;
    this.#resyncing = true;
    this.#hello().then(
      () => {
        this.#resyncing = false;
        this.#reconcile();
      },
      (error: unknown) => {
        this.#resyncing = false;
        this.#markDown(error);
      },
    );
  }

  /**
   * Makes Redis agree with this instance again: its running tasks hold leases (adopted without a limit
   * check: they already run), its waiting tickets are queued (sent again; a repeat changes nothing), and
   * the local fallback, if any, is dropped. Everything is sent before any later call. Failing closed
   * after an outage longer than a lease, running tasks are not adopted: a heartbeat renews the leases
   * Redis still holds and revokes the lapsed ones (their slots may be someone else's by now).
   */
  #reconcile(): void {
    const wasLocal = this.#fallback !== null;
    this.#fallback?.handBack();
    this.#fallback = null;
    this.#removeDropped();
    const running = this.#ledger.list(RUNNING);
    const pending = this.#ledger.list(PENDING);
    if (running.length > 0 && !wasLocal && this.#lapsed()) {
      void this.#heartbeat(); // renews the leases Redis still holds; the lapsed ones are revoked
    } else if (running.length > 0) {
      const sentAt = performance.now();
      this.#remote.adopt(running.map((entry) => entry.ticket)).then(
        (reply) => {
          this.#renewedAt = sentAt;
          this.#absorb(reply);
        },
        (error: unknown) => this.#markDown(error),
      );
    }
    for (const entry of pending) this.#resend(entry);
  }

  #resend(entry: Entry): void {
    const id = this.#remote.id(entry.ticket);
    this.#remote.enqueue(entry.ticket).then(
      (status) => {
        if (status === Status.UNREGISTERED || status === Status.UNCONFIGURED) {
          this.#resync();
        } else if (status === Status.GRANTED || status === Status.ALREADY_GRANTED) {
          if (!this.#deliver(entry.ticket.seq)) this.#handBack([id]);
        } else if (status === Status.FULL) {
          this.#drop(entry, this.#refusedAgain(entry.ticket));
        } else if (status < 0) {
          this.#drop(entry, this.#unknownPriority(entry.ticket));
        }
      },
      (error: unknown) => this.#markDown(error),
    );
  }

  /** Redis was full when a waiting ticket was sent again (after a restart): its caller hears QUEUE_FULL. */
  #refusedAgain(ticket: Ticket): SchedulerError {
    return new SchedulerError(
      ErrorCode.QUEUE_FULL,
      `The ${ticket.priority} queue in Redis was full when the waiting task was sent again after Redis came back`,
      { priority: ticket.priority },
    );
  }

  #unknownPriority(ticket: Ticket): Error {
    return new Error(
      `Priority "${ticket.priority}" is not configured in Redis under "${this.#config.prefix}": ` +
        "every instance sharing a prefix must configure the same priorities",
    );
  }

  /** The store gives up a waiting ticket on its own: the scheduler rejects its caller with `error`. */
  #drop(entry: Entry, error: unknown): void {
    if (this.#ledger.of(entry.ticket) !== entry || entry.state !== PENDING) return;
    this.#forget(entry);
    this.#host?.fail(entry.ticket, error);
  }

  /**
   * A reconnection attempt failed: the outage is real, not one slow reply. Failing closed, the tickets
   * still waiting here are rejected now (STORE_UNAVAILABLE, retry after the next reconnection attempt)
   * rather than at their queue timeout; they are taken out of Redis once it is back.
   */
  #unreachable(): void {
    if (this.#config.onStoreError !== "fail-closed" || this.#detached || this.#host === null) return;
    for (const entry of this.#ledger.list(PENDING)) {
      this.#dropped.push(this.#remote.id(entry.ticket));
      this.#drop(entry, this.#unavailable(entry.ticket));
    }
  }

  #unavailable(ticket: Ticket): SchedulerError {
    const cause = this.#downCause;
    const reason = cause instanceof Error ? `: ${cause.message}` : "";
    return new SchedulerError(
      ErrorCode.STORE_UNAVAILABLE,
      `Redis cannot be reached${reason}; the store fails closed and dropped the waiting task`,
      { priority: ticket.priority, retryAfterMs: this.#tickMs, cause },
    );
  }

  /** Takes the tickets given up during an outage out of Redis's queues (a repeat changes nothing). */
  #removeDropped(): void {
    const ids = this.#dropped;
    if (ids.length === 0) return;
    this.#dropped = [];
    for (let i = 0; i < ids.length; i += REMOVE_CHUNK) {
      const chunk = ids.slice(i, i + REMOVE_CHUNK);
      this.#remote.remove(chunk).catch((error: unknown) => {
        this.#dropped.push(...chunk);
        this.#markDown(error);
      });
    }
  }

  #schedule(delay = this.#tickMs): void {
    if (this.#detached || this.#firstConnect !== null) return;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#tick(), delay);
    this.#timer.unref();
  }

  /** The one timer: heartbeat, lease renewal and inbox drain while up; reconnection attempts while down. */
  #tick(): void {
    this.#timer = null;
    if (this.#detached) return;
    const next = (): void => {
      if (this.#timer === null) this.#schedule();
    };
    if (!this.#up) {
      void this.#connect().then((connected) => {
        if (!connected) this.#unreachable();
        next();
      });
      return;
    }
    // Paced from when each heartbeat was sent: after a stall, the next one goes out at once.
    const sentAt = performance.now();
    void this.#heartbeat().then(() => {
      if (this.#timer === null) this.#schedule(Math.max(0, sentAt + this.#tickMs - performance.now()));
    });
  }

  /** Renews the heartbeat and the leases of the running tasks, and drains the inbox. */
  #heartbeat(): Promise<void> {
    const sentAt = performance.now();
    const running = this.#ledger.list(RUNNING).map((entry) => entry.ticket);
    return this.#remote.tick(running).then(
      (reply) => this.#ticked(reply, sentAt),
      (error: unknown) => this.#markDown(error),
    );
  }

  /** True when a lease of this instance may have lapsed: no renewal of it was sent within `leaseMs`. */
  #lapsed(): boolean {
    return performance.now() - this.#renewedAt > this.#config.leaseMs;
  }

  #ticked(reply: Reply, sentAt: number): void {
    if (reply.status === Status.UNCONFIGURED) {
      this.#resync();
      return;
    }
    const lapsed = this.#lapsed();
    this.#renewedAt = sentAt;
    const heard = new Set(this.#heard);
    this.#heard.clear();
    this.#absorb(reply, heard);
    const missing = reply.extra
      .map((id) => this.#ledger.get(this.#remote.seqOf(id) ?? -1))
      .filter((entry): entry is Entry => entry !== undefined && entry.state === RUNNING);
    if (missing.length > 0 && lapsed) {
      this.#revoke(missing);
    } else if (missing.length > 0) {
      // Renewed in time, yet gone: Redis lost them (a restart or failover). Count them again.
      this.#remote.adopt(missing.map((entry) => entry.ticket)).then(
        (adopted) => this.#absorb(adopted),
        (error: unknown) => this.#markDown(error),
      );
    }
    if (reply.status === TICK_LOST) this.#resync(); // queued tickets may have been purged
  }

  /**
   * The leases of running tasks lapsed (this instance stalled, or could not reach Redis, for longer than
   * `leaseMs`) and Redis took the slots back: they may be another task's by now. The scheduler aborts
   * each task's signal and forgets its slot, so that the global limit holds again.
   */
  #revoke(entries: readonly Entry[]): void {
    const { leaseMs } = this.#config;
    for (const entry of entries) {
      this.#forget(entry);
      this.#host?.revoke(
        entry.ticket,
        new SchedulerError(
          ErrorCode.STORE_UNAVAILABLE,
          `The lease of the task's slot lapsed (no renewal reached Redis within leaseMs, ${leaseMs} ms) ` +
            "and Redis gave the slot back; the task was stopped so that the global limit holds",
          { priority: entry.ticket.priority },
        ),
      );
    }
  }
}

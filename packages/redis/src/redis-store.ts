import type {
  EnqueueResult,
  LimitProposal,
  LimitState,
  MaybePromise,
  Store,
  StoreConfig,
  StoreHost,
  StoreSnapshot,
  Ticket,
  TokenUsage,
} from "@llm-scheduler/core/kit";
import {
  addressOf,
  type Connection,
  openClient,
  openSubscriber,
  settledWithin,
  whenReady,
} from "./connection.js";
import { storeDown } from "./errors.js";
import { Grants } from "./grants.js";
import { grantChannel } from "./keys.js";
import type { Entry } from "./ledger.js";
import { Link } from "./link.js";
import { type RedisStoreOptions, type RedisStoreStatus, resolveRedisOptions } from "./options.js";
import { Remote } from "./remote.js";
import { RemotePath } from "./remote-path.js";
import { Status } from "./replies.js";
import { StoreState } from "./state.js";
import { TenantFiguresCache } from "./tenant-figures.js";

export type { RedisStoreStatus } from "./options.js";

/**
 * A {@link Store} that keeps the queues, the running counts and the picker's state in Redis, so that
 * every gateway instance sharing a `prefix` obeys one global limit and one global order. Each decision
 * is one Lua script; slots are leases renewed while tasks run; grants reach the waiting instance by
 * pub/sub, with a slow safety poll. One store serves one scheduler.
 *
 * Each call goes to Redis while it is up ({@link RemotePath}), to the local fallback while it serves,
 * or fails (failing closed). Grant delivery ({@link Grants}), the heartbeat and the link to Redis
 * (going down, coming back, reconciling: {@link Link}) live in their own files and share a
 * {@link StoreState}.
 *
 * Preemption (`preempts`) works across instances: Redis chooses each victim among the running tickets
 * of every instance (preempt.lua), the victim's instance hears of it by pub/sub or, at the latest, from
 * its next heartbeat, stops it, and its let-go hands the slot to the arrival in one script
 * (`releasePreempted`).
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
  readonly #client: Connection;
  readonly #ownsClient: boolean;
  readonly #state: StoreState;
  readonly #grants: Grants;
  readonly #link: Link;
  readonly #path: RemotePath;
  readonly #figures: TenantFiguresCache;
  #subscriber: Connection | null = null;
  #closing: Promise<void> | null = null;
  readonly #onClientError = (error: unknown): void => {
    this.#state.noteError(error);
    this.#state.config.onError(error);
  };
  readonly #onClientReady = (): void => {
    if (!this.#state.up) void this.#link.connect();
  };
  readonly #onClientClose = (): void => {
    this.#link.markDown(new Error("The connection to Redis closed"));
  };

  constructor(options: RedisStoreOptions = {}) {
    const config = resolveRedisOptions(options);
    this.instanceId = config.instanceId;
    const { client, owned } = openClient(config);
    this.#client = client;
    this.#ownsClient = owned;
    this.#state = new StoreState(config, new Remote(client, config, (reply) => this.#grants.absorb(reply)));
    this.#state.address = addressOf(client, config.cluster);
    this.#figures = new TenantFiguresCache(client, config.prefix);
    this.#grants = new Grants(
      this.#state,
      (ids) => this.#path.handBack(ids),
      (ids) => this.#path.spare(ids).catch(this.#state.config.onError),
    );
    this.#link = new Link(this.#state, this.#grants);
    this.#path = new RemotePath(this.#state, this.#grants, this.#link);
    client.on("error", this.#onClientError);
    client.on("ready", this.#onClientReady);
    client.on("close", this.#onClientClose);
  }

  /** `connected`, `local` (Redis unreachable, local fallback), `unavailable` (fail-closed), … */
  get status(): RedisStoreStatus {
    return this.#state.status;
  }

  attach(host: StoreHost, options: StoreConfig): Promise<void> {
    const state = this.#state;
    if (state.host !== null || state.detached) {
      throw new Error("A RedisStore serves one scheduler; create one store per scheduler.");
    }
    state.host = host;
    state.options = options;
    state.remote.clock = host.clock;
    const { subscriber, subscribed } = openSubscriber(
      this.#client,
      grantChannel(state.config.prefix, this.instanceId),
      {
        message: (ids) => this.#grants.heard(ids),
        ready: () => this.#link.heartbeat.schedule(0), // grants published while it was away wait in the inbox
        error: this.#onClientError,
      },
    );
    this.#subscriber = subscriber;
    const timeout = state.config.commandTimeoutMs;
    return this.#link.start(
      Promise.all([whenReady(this.#client, timeout), settledWithin(subscribed, timeout)]),
    );
  }

  configure(options: StoreConfig): MaybePromise<void> {
    const state = this.#state;
    state.options = options;
    state.fallback?.configure(state.localOptions());
    if (!state.up) return;
    return this.#path.configure(options);
  }

  enqueue(ticket: Ticket): MaybePromise<EnqueueResult> {
    const state = this.#state;
    if (state.up) return this.#path.enqueue(state.ledger.add(ticket));
    if (state.fallback !== null) return this.#enqueueLocal(state.ledger.add(ticket));
    if (state.starting !== null) return state.starting.then(() => this.enqueue(ticket));
    return Promise.reject(storeDown(state.address, state.lastError));
  }

  remove(ticket: Ticket): MaybePromise<boolean> {
    const state = this.#state;
    const entry = state.ledger.of(ticket);
    if (entry === undefined || entry.state !== "waiting") return false;
    state.forget(entry);
    if (!state.up) {
      if (state.fallback === null) state.dropped.push(state.remote.id(ticket)); // still queued in Redis
      return true;
    }
    return this.#path.remove(ticket);
  }

  /**
   * Corrects the ticket's tenant bucket and fairness counter in Redis by the difference between the
   * tokens it used and its estimate (sent with this turn's other calls); on the local fallback, there.
   */
  reportUsage(ticket: Ticket, usage: TokenUsage): MaybePromise<void> {
    const state = this.#state;
    if (state.up) return this.#path.usage(ticket, usage);
    state.fallback?.reportUsage(ticket, usage);
  }

  release(ticket: Ticket): MaybePromise<void> {
    const state = this.#state;
    const entry = state.ledger.of(ticket);
    if (entry !== undefined) state.forget(entry);
    if (!state.up) return; // the lease lapses by itself
    return this.#path.release([state.remote.id(ticket)]);
  }

  /**
   * A preemption victim of this instance let go of its slot: in one script call (yield.lua), Redis
   * hands the slot to the victim's arrival, whichever instance it waits on, and, when `requeue`, the
   * ticket waits again at the front of its queue. Without `requeue` this is a release (whose script
   * hands the victim's slot over too). Off Redis, on the local fallback, the ticket queues there again;
   * failing closed, the call fails and the scheduler rejects its caller (the lease lapses by itself).
   */
  releasePreempted(ticket: Ticket, requeue: boolean): MaybePromise<void> {
    if (!requeue) return this.release(ticket);
    const state = this.#state;
    const entry = state.ledger.of(ticket) ?? state.ledger.add(ticket);
    if (entry.state === "granted") {
      state.fallback?.forget(entry); // it held a slot of the local fallback
      state.ledger.requeue(entry);
    }
    if (state.up) return this.#path.yieldSlot(ticket, entry);
    if (state.fallback !== null) {
      const result = this.#enqueueLocal(entry);
      if (result === "granted") state.host?.grant(ticket);
      else if (result !== "queued") state.host?.fail(ticket, storeDown(state.address, state.lastError));
      return;
    }
    state.ledger.delete(entry);
    throw storeDown(state.address, state.lastError);
  }

  /** A running ticket of this instance is never to be a victim again in this run (see spare.lua). */
  spare(ticket: Ticket): MaybePromise<void> {
    const state = this.#state;
    if (!state.up || state.ledger.of(ticket)?.state !== "granted") return;
    return this.#path.spare([state.remote.id(ticket)]);
  }

  removeAll(): MaybePromise<Ticket[]> {
    const state = this.#state;
    const entries = state.ledger.list("waiting");
    for (const entry of entries) state.forget(entry);
    const tickets = entries.map((entry) => entry.ticket);
    if (!state.up || tickets.length === 0) return tickets;
    return this.#path.removeAll(tickets);
  }

  /**
   * Changes the one global limit of adaptive schedulers sharing the prefix, atomically (see limit.lua):
   * a change applies only from the current epoch, so instances that see one overload cut once. Answers
   * the global limit after the call; fails while Redis is down (the limit then stays as it is).
   */
  adjustLimit(proposal: LimitProposal): Promise<LimitState> {
    const state = this.#state;
    if (!state.up) return Promise.reject(new Error("Redis is unavailable: the global limit stays as it is"));
    return state.remote.limit(proposal).then((reply) => {
      this.#grants.absorb(reply);
      if (reply.status === Status.UNCONFIGURED) {
        this.#link.resync();
        throw new Error("The Redis store is not configured yet: the global limit stays as it is");
      }
      const [limit, epoch, changed] = reply.extra;
      return { limit: Number(limit), epoch: Number(epoch), changed: changed === "1" };
    });
  }

  depth(priority: string): number {
    const { fallback, counts } = this.#state;
    if (fallback !== null) return fallback.depth(priority);
    return counts.priorities[priority]?.queued ?? 0;
  }

  /**
   * Starts per second of `priority` across every instance sharing the prefix, as last measured from
   * the replies of this instance's calls and heartbeats (over the last 10 s); `undefined` while unknown
   * or on the local fallback. The scheduler's `retryAfterMs` divides the global queue by it.
   *
   * @example
   * store.drainRate("batch"); // 42.5: the batch queue drains by about 42 tasks a second, all instances together
   */
  drainRate(priority: string): number | undefined {
    const { fallback, drain } = this.#state;
    return fallback === null ? drain.rate(priority) : undefined;
  }

  /**
   * Global counts as Redis last reported them (exact after this instance's own calls); tenants: this
   * instance's busiest, with their token figures over every instance (when a tenant quota is set) as
   * last read from Redis, a read at most once a second.
   */
  snapshot(tenantLimit: number): StoreSnapshot {
    const { fallback, counts, ledger, options, config, host } = this.#state;
    if (fallback !== null) return fallback.snapshot(tenantLimit);
    const { running, queued, priorities } = counts;
    const tenants = ledger.tenants(tenantLimit);
    if (options === null || host === null || tenants.length === 0)
      return { running, queued, priorities, tenants };
    const now = config.agingClock === "scheduler" ? host.clock.now() : Date.now();
    this.#figures.refresh([...new Set(tenants.map((t) => t.tenant))], now, config.onError);
    const withFigures = tenants.map((t) => ({ ...t, ...this.#figures.of(t.tenant, options, now) }));
    return { running, queued, priorities, tenants: withFigures };
  }

  async detach(): Promise<void> {
    const state = this.#state;
    if (state.detached) return;
    state.detached = true;
    state.report();
    this.#link.heartbeat.stop();
    const subscriber = this.#subscriber;
    this.#subscriber = null;
    subscriber?.removeAllListeners("message");
    subscriber?.disconnect();
    state.fallback = null;
    if (state.up) {
      state.up = false;
      await state.remote.leave().catch(this.#onClientError);
    }
    state.host = null;
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

  #enqueueLocal(entry: Entry): EnqueueResult {
    const result = this.#state.fallback!.enqueue(entry);
    if (result !== "granted" && result !== "queued") this.#state.ledger.delete(entry);
    return result;
  }
}

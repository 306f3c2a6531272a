import {
  type Clock,
  type CloseOptions,
  createScheduler,
  type MetricsSnapshot,
  type Permit,
  type Scheduler,
  systemClock,
  type TaskOptions,
} from "@llm-scheduler/core";
import { HealthChecks } from "./checks.js";
import { PoolError, PoolErrorCode } from "./errors.js";
import { forward } from "./forward.js";
import {
  isScheduler,
  type PoolOptions,
  type PoolSchedulerOptions,
  resolveHealth,
  resolveReplicas,
  resolveRetries,
  resolveSchedulerLimit,
  resolveSignals,
} from "./options.js";
import { outgoingOf, type ReplayableBody } from "./outgoing.js";
import { Placement } from "./placement.js";
import { Replica, type ReplicaMetrics } from "./replica.js";
import { type KeyOfRequest, resolveKeyOf, resolveRouter } from "./request-routing.js";
import { SignalScraper } from "./scraper.js";
import { Sharing } from "./shared.js";
import { resolveShared } from "./shared-options.js";
import { resolveSpeed } from "./speed.js";

/** The per-call options of {@link Pool.fetch}: the request's own, and who it is for the scheduler. */
export interface PoolFetchInit
  extends Pick<TaskOptions, "priority" | "tenant" | "id" | "timeoutMs" | "cost"> {
  readonly method?: string;
  readonly headers?: HeadersInit;
  readonly body?: ReplayableBody;
  /**
   * What the router keys on (a prefix hash, a session id). Not given: the pool's `routingKey` option
   * derives it from the body (the system prompt and first message, or `user`).
   */
  readonly routingKey?: string;
  /** The caller's signal: removes the request from the queue, or cancels it upstream. */
  readonly signal?: AbortSignal;
}

/** The per-call options of {@link Pool.forward}: the request only (the permit says who it is). */
export type PoolForwardInit = Pick<PoolFetchInit, "method" | "headers" | "body" | "routingKey">;

/** What `pool.onHealth()` listeners get: a replica ejected or brought back, and the capacity now. */
export interface HealthChange {
  readonly id: string;
  readonly healthy: boolean;
  readonly capacity: number;
}

/** `pool.metrics()`: the scheduler's snapshot (its `maxConcurrency` is the pool's capacity) and more. */
export interface PoolMetrics extends MetricsSnapshot {
  /** Requests that hold a pool slot and wait for a replica with room (held back, or all full). */
  readonly waitingForReplica: number;
  readonly replicas: readonly ReplicaMetrics[];
}

/**
 * Several replicas of one model behind one scheduler: the scheduler decides who goes next (priorities,
 * tenants, quotas, preemption) with a limit of the sum of the healthy replicas' limits (or less, with
 * `scheduler.maxConcurrency`); the router decides where; each replica enforces its own limit. Create it
 * with {@link createPool}.
 */
export class Pool {
  /** The pool's scheduler: listen to its events, read its options, `update()` its priorities. */
  readonly scheduler: Scheduler;
  readonly #replicas: readonly Replica[];
  readonly #placement: Placement;
  readonly #retries: number;
  readonly #keyOf: KeyOfRequest;
  /** `scheduler.maxConcurrency` as configured, or `undefined` for the healthy replicas' sum. */
  readonly #limit: number | undefined;
  readonly #fetch: typeof fetch;
  readonly #checks: HealthChecks | undefined;
  readonly #scraper: SignalScraper | undefined;
  readonly #shared: Sharing | undefined;
  readonly #now: () => number;
  readonly #clock: Clock;
  readonly #healthListeners = new Set<(change: HealthChange) => void>();
  /** False when the scheduler is the caller's: the pool then never closes it. */
  readonly #ownsScheduler: boolean;
  #closed = false;

  constructor(options: PoolOptions) {
    const retries = resolveRetries(options);
    const entries = resolveReplicas(options.replicas);
    const health = resolveHealth(options.health);
    const signals = resolveSignals(options.signals);
    const shared = resolveShared(options.shared);
    const speed = resolveSpeed("speed", options.speed);
    const router = resolveRouter(options.routing);
    this.#keyOf = resolveKeyOf(options.routingKey);
    this.#limit = resolveSchedulerLimit(options);
    const own = isScheduler(options.scheduler) ? options.scheduler : undefined;
    const given = own === undefined ? (options.scheduler as PoolSchedulerOptions | undefined) : undefined;
    const clock = options.clock ?? given?.clock ?? systemClock;
    this.#clock = clock;
    this.#now = () => clock.now();
    this.#retries = retries;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#checks = health === undefined ? undefined : new HealthChecks(health, this.#fetch, clock);
    // Speeds are relative to the other replicas': a pool of one has nothing to weigh, so it measures none.
    const measured = entries.length > 1 ? speed : undefined;
    this.#replicas = entries.map(
      ({ id, options: replica }) =>
        new Replica(id, replica, clock, health, (healthy) => this.#changed(id, healthy), measured),
    );
    this.#placement = new Placement(this.#replicas, router, signals, this.#now, measured?.minFactor);
    this.#ownsScheduler = own === undefined;
    this.scheduler = own ?? createScheduler({ ...given, clock, maxConcurrency: this.capacity });
    if (own !== undefined) this.#changed(undefined);
    for (const replica of this.#replicas) this.#checks?.schedule(replica);
    this.#scraper =
      signals === undefined
        ? undefined
        : new SignalScraper(signals, this.#fetch, clock, () => this.#placement.wake());
    this.#scraper?.start(this.#replicas);
    this.#shared =
      shared && new Sharing(shared, this.#replicas, health !== undefined, clock, this.#placement);
  }

  /**
   * The scheduler's limit: the sum of the healthy replicas' limits, or `scheduler.maxConcurrency` when
   * that is lower (at least 1, so that requests are refused, not stuck).
   */
  get capacity(): number {
    let sum = 0;
    for (const replica of this.#replicas) if (replica.healthy) sum += replica.limit;
    return Math.max(1, Math.min(sum, this.#limit ?? sum));
  }

  /**
   * Sends a request to the pool: it waits for its turn in the pool's scheduler, goes to the replica
   * the router picks, and, if it fails there before its first byte (connection refused or reset, 503,
   * 429), to another (up to `retries` more), keeping its place. The response's body holds the slot
   * until its last byte is read, or it is cancelled. Rejects with the scheduler's `SchedulerError`
   * (`QUEUE_FULL`, `ABORTED`, ...) or a {@link PoolError}.
   *
   * @example
   * const response = await pool.fetch("/v1/chat/completions", {
   *   method: "POST", headers: { "content-type": "application/json" }, body, priority: "interactive", tenant: "alice",
   * });
   */
  async fetch(input: Request | string, init: PoolFetchInit = {}): Promise<Response> {
    const request = await outgoingOf(input, init);
    const { routingKey, signal, method: _m, headers: _h, body: _b, ...task } = init;
    const key = routingKey ?? this.#keyOf(request);
    const permit = await this.scheduler.acquire(signal === undefined ? task : { ...task, signal });
    const routing = {
      priority: this.scheduler.options.defaultPriority,
      ...(task.priority === undefined ? {} : { priority: task.priority }),
      tenant: task.tenant,
      routingKey: key,
    };
    try {
      return await forward(
        {
          placement: this.#placement,
          retries: this.#retries,
          fetch: this.#fetch,
          shared: this.#shared,
          ownsPermit: true,
        },
        permit,
        request,
        routing,
      );
    } catch (error) {
      permit.release(error);
      throw error;
    }
  }

  /**
   * Sends a request whose slot is already held: `permit` comes from this pool's scheduler, acquired by
   * the caller (an adapter's middleware on `pool.scheduler`, given as `scheduler` to `createPool`). It is
   * placed and retried before its first byte exactly as `fetch()` does, keeping the permit; the response's
   * body holds the replica's slot until its last byte. The permit stays the caller's: release it once
   * the answer has been sent, and report its first byte (the adapters do both). Rejects with a
   * {@link PoolError}, or with the permit signal's reason (caller gone, run timeout, preempted).
   *
   * @example
   * app.post("/v1/chat/completions", async (c) => {
   *   const { permit } = c.get("llmScheduler");
   *   return pool.forward(permit, "/v1/chat/completions", { method: "POST", headers, body: await c.req.text() });
   * });
   */
  async forward(permit: Permit, input: Request | string, init: PoolForwardInit = {}): Promise<Response> {
    const request = await outgoingOf(input, init);
    if (this.#closed) throw new PoolError(PoolErrorCode.NO_REPLICA, "The pool is closed");
    const routing = {
      priority: permit.priority,
      tenant: permit.tenant,
      routingKey: init.routingKey ?? this.#keyOf(request),
    };
    const deps = {
      placement: this.#placement,
      retries: this.#retries,
      fetch: this.#fetch,
      shared: this.#shared,
      ownsPermit: false,
    };
    return forward(deps, permit, request, routing);
  }

  /** The scheduler's snapshot, with each replica's limit, load, health and engine signals. */
  metrics(): PoolMetrics {
    const now = this.#now();
    const staleMs = this.#placement.staleMs;
    return {
      ...this.scheduler.metrics(),
      waitingForReplica: this.#placement.waiting,
      replicas: this.#replicas.map((replica) => replica.metrics(now, staleMs)),
    };
  }

  /**
   * Stops checks and scrapes, closes the scheduler (as `scheduler.close(options)`) and the replicas. A
   * scheduler of the caller's own stays open: with `drain`, the pool waits (up to `timeoutMs`) for the
   * requests it is serving or placing to end; then those still waiting for a replica are refused.
   */
  async close(options?: CloseOptions): Promise<void> {
    this.#closed = true;
    this.#checks?.close();
    this.#scraper?.close();
    this.#shared?.close();
    if (this.#ownsScheduler) await this.scheduler.close(options);
    else if (options?.drain === true) await this.#drained(options.timeoutMs ?? Number.POSITIVE_INFINITY);
    this.#placement.rejectAll(new PoolError(PoolErrorCode.NO_REPLICA, "The pool is closed"));
    await Promise.all(this.#replicas.map((replica) => replica.close()));
  }

  /** Resolves once no request is in flight on a replica or waiting for one, or after `timeoutMs`. */
  async #drained(timeoutMs: number): Promise<void> {
    const clock = this.#clock;
    const until = clock.now() + timeoutMs;
    const busy = () => this.#placement.waiting > 0 || this.#replicas.some((replica) => replica.inFlight > 0);
    while (busy() && clock.now() < until) {
      this.#placement.wake(); // signals go stale with the scrapes stopped: held-back work may go now
      await new Promise<void>((resolve) => {
        clock.setTimer(resolve, Math.min(50, Math.max(1, until - clock.now())));
      });
    }
  }

  /**
   * Calls `listener` each time a replica is ejected (`healthy: false`) or brought back (`true`), with
   * the pool's capacity after the change; returns the function that removes it. A listener that throws
   * changes nothing.
   *
   * @example
   * pool.onHealth(({ id, healthy, capacity }) => log.warn({ id, healthy, capacity }, "replica health"));
   */
  onHealth(listener: (change: HealthChange) => void): () => void {
    this.#healthListeners.add(listener);
    return () => this.#healthListeners.delete(listener);
  }

  /** A replica's limit (`healthy` undefined) or health changed: capacity follows, waiters may fit now. */
  #changed(id: string | undefined, healthy?: boolean): void {
    const replica = id === undefined ? undefined : this.#replicas.find((r) => r.id === id);
    if (replica !== undefined) this.#checks?.schedule(replica);
    if (replica !== undefined && healthy === false) this.#shared?.ejected(replica);
    const capacity = this.capacity;
    // a closed pool (one replaced over a scheduler that stays) no longer sets the scheduler's limit
    if (!this.#closed && this.scheduler !== undefined && this.scheduler.maxConcurrency !== capacity) {
      try {
        void this.scheduler.update({ maxConcurrency: capacity });
      } catch {
        // refused (reserves above the new capacity): the old limit stays; replicas still enforce theirs
      }
    }
    this.#placement.wake();
    if (id !== undefined && healthy !== undefined) this.#tellHealth({ id, healthy, capacity });
  }

  #tellHealth(change: HealthChange): void {
    for (const listener of this.#healthListeners) {
      try {
        listener(change);
      } catch {
        // a listener that throws must not break the pool
      }
    }
  }
}

/**
 * A pool of replicas of one model behind one scheduler.
 *
 * @example
 * const pool = createPool({
 *   replicas: [{ url: "http://10.0.0.1:8000", maxConcurrency: 8 }, { url: "http://10.0.0.2:8000", maxConcurrency: 8 }],
 *   routing: "prefix",
 *   scheduler: { priorities: { interactive: { weight: 5, reserved: 2 }, batch: { weight: 1 } }, defaultPriority: "interactive" },
 * });
 * const response = await pool.fetch("/v1/models");
 */
export function createPool(options: PoolOptions): Pool {
  return new Pool(options);
}

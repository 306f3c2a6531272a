import { reservedTotal } from "./adaptive/effective-priorities.js";
import { AdaptiveLimit } from "./adaptive/observer.js";
import { withShares } from "./adaptive/share-metrics.js";
import { splitLimitUpdate } from "./adaptive/update.js";
import { WaitTargets } from "./adaptive/wait-targets.js";
import type { TaskOptions } from "./admission.js";
import type { Listener } from "./emitter.js";
import { Engine } from "./engine.js";
import { ErrorCode, SchedulerError } from "./errors.js";
import type { SchedulerEvents } from "./events.js";
import { MemoryStore } from "./memory/memory-store.js";
import {
  defaultPriorities,
  type ResolvedOptions,
  type SchedulerOptions,
  type SchedulerUpdate,
} from "./options.js";
import type { Permit } from "./permit.js";
import { Reporter } from "./reporter.js";
import { checkedStore, mergeUpdate, resolveOptions } from "./resolve-options.js";
import type { MetricsSnapshot } from "./stats.js";
import type { Store } from "./store.js";
import type { TaskFunction } from "./task.js";
import { duration, invalidOption, plainObject, rejectUnknownKeys } from "./validate.js";

/** Options of {@link Scheduler.close}. */
export interface CloseOptions {
  /** Let queued tasks run (`true`) or reject them with `CLOSED` at once (`false`). @default false */
  readonly drain?: boolean;
  /**
   * After this long, queued tasks are rejected and running ones aborted (`CLOSED`): 0 to 365 days in ms,
   * or `Infinity` to wait for every task however long it takes.
   * @default 30_000
   */
  readonly timeoutMs?: number;
}

/** Validates `close()` options; throws `INVALID_OPTION`. */
function closeOptions(options: CloseOptions): { drain: boolean; timeoutMs: number } {
  const given = plainObject("close options", options ?? {});
  rejectUnknownKeys("", given, ["drain", "timeoutMs"]);
  const { drain = false, timeoutMs = 30_000 } = given as CloseOptions;
  if (typeof drain !== "boolean") throw invalidOption("drain", "a boolean", drain);
  return { drain, timeoutMs: timeoutMs === 0 ? 0 : duration("timeoutMs", timeoutMs) };
}

/**
 * Decides when each request may go upstream: weighted fair sharing between priorities, reserved and
 * maximum concurrency per priority, aging, tenant turns, queue and run timeouts, and exactly-once
 * settlement. Create it with {@link createScheduler}. This class is the public face: the life of each
 * task is `Engine`'s, events and counters are `Reporter`'s, queues and picks are the store's.
 */
export class Scheduler {
  #raw: SchedulerOptions;
  #options: ResolvedOptions;
  readonly #store: Store;
  readonly #reporter: Reporter;
  readonly #engine: Engine;
  readonly #adaptive: AdaptiveLimit;
  readonly #targets: WaitTargets;
  #closing: Promise<void> | null = null;

  constructor(options: SchedulerOptions = {}) {
    this.#options = resolveOptions(options);
    this.#raw = {
      ...options,
      priorities:
        options.priorities ?? defaultPriorities(this.#options.adaptive?.max ?? this.#options.maxConcurrency),
    };
    this.#reporter = new Reporter(this.#options.clock, this.#options.priorities);
    this.#store = checkedStore(options.store) ?? new MemoryStore();
    this.#engine = new Engine(this.#options, this.#store, this.#reporter);
    this.#adaptive = this.#adaptiveLimit();
    this.#configureAdaptive(undefined);
    this.#targets = new WaitTargets(
      {
        clock: this.#options.clock,
        events: this.#reporter.events,
        configured: () => this.#options,
        limit: () => this.maxConcurrency,
        runningCost: (priority) => this.#engine.runningCost(priority),
        apply: (effective) => {
          this.#adaptive.setReserved(reservedTotal(effective));
          if (!this.closed) this.#engine.configure(effective).catch((error) => this.#reporter.error(error));
        },
      },
      this.#options.waitTargets,
    );
  }

  /** The adaptive limit's ties to this scheduler: its clock, its store, its events. */
  #adaptiveLimit(): AdaptiveLimit {
    const store = this.#store;
    const engine = this.#engine;
    const reporter = this.#reporter;
    const adjust = store.adjustLimit;
    return new AdaptiveLimit({
      clock: this.#options.clock,
      // A shared store counts every instance's running tasks; this instance's own count otherwise.
      running: adjust === undefined ? () => engine.runningUnits : () => store.snapshot(0).running,
      apply: (limit) => this.#limitMoved(limit),
      share: adjust === undefined ? undefined : (proposal) => adjust.call(store, proposal),
      emit: (event) => {
        if (reporter.events.has("limit")) reporter.events.emit("limit", event);
      },
      error: (error) => reporter.error(error),
      holdTenants: (caps) => engine.setLive({ tenantCaps: caps }),
      emitBackoff: (event) => {
        if (reporter.events.has("backoff")) reporter.events.emit("backoff", event);
      },
    });
  }

  #configureAdaptive(setTo: number | undefined): void {
    this.#adaptive.configure(this.#options.adaptive, setTo);
    this.#reporter.observer = this.#adaptive.active ? this.#adaptive : null;
  }

  /**
   * The adaptive limit moved (or stopped being adaptive: `undefined`): the wait targets' reserves are
   * bounded by the new limit, the store gets both in one `configure`, and the limit's floor follows the
   * reserves. (At construction the wait targets do not exist yet: nothing is raised then.)
   */
  #limitMoved(limit: number | undefined): void {
    const targets = this.#targets as WaitTargets | undefined;
    const effective = targets?.limitMoved();
    this.#engine.setLive({ maxConcurrency: limit }, effective);
    if (effective !== undefined) this.#adaptive.setReserved(reservedTotal(effective));
  }

  /**
   * Queues `fn` and runs it when its priority's turn and a slot come. Resolves or rejects with what `fn`
   * returns, or rejects with a {@link SchedulerError} (`QUEUE_FULL`, `QUEUE_TIMEOUT`, `RUN_TIMEOUT`,
   * `ABORTED`, `CLOSED`, `INVALID_PRIORITY`, `INVALID_OPTION`).
   *
   * @example
   * const text = await scheduler.run(({ signal }) => callUpstream(body, { signal }), { priority: "batch", tenant: "team-a" });
   */
  run<T>(fn: TaskFunction<T>, options: TaskOptions = {}): Promise<T> {
    if (typeof fn !== "function") {
      return Promise.reject(new SchedulerError(ErrorCode.INVALID_OPTION, "Expected `fn` to be a function"));
    }
    return this.#engine.submit(fn as TaskFunction<unknown>, options) as Promise<T>;
  }

  /**
   * Waits for a slot and returns a {@link Permit} that holds it until `permit.release()`; for code that
   * must hold the slot beyond one function call (a streamed response).
   *
   * @example
   * const permit = await scheduler.acquire({ priority: "interactive", tenant: "alice", signal });
   * try { await pipeStream(permit.signal); } finally { permit.release(); }
   */
  acquire(options: TaskOptions = {}): Promise<Permit> {
    return this.#engine.submit(null, options) as Promise<Permit>;
  }

  /**
   * A permit at once, synchronously, when a slot is free for this request and nothing waits ahead of it;
   * `undefined` otherwise (then `await acquire()`), and always `undefined` with a store that answers
   * asynchronously. The fast path of adapters: no promise, and no `AbortSignal` needed while nothing
   * queues (call `permit.abort()` if the client leaves). Throws a `SchedulerError` for invalid options or
   * when closed.
   *
   * @example
   * const permit = scheduler.tryAcquire({ priority: "interactive" }) ?? (await scheduler.acquire({ priority: "interactive", signal }));
   */
  tryAcquire(options: TaskOptions = {}): Permit | undefined {
    return this.#engine.tryAcquire(options);
  }

  /** Adds a listener for a typed event; returns a function that removes it. */
  on<K extends keyof SchedulerEvents>(name: K, listener: Listener<SchedulerEvents, K>): () => void {
    return this.#reporter.events.on(name, listener);
  }

  off<K extends keyof SchedulerEvents>(name: K, listener: Listener<SchedulerEvents, K>): void {
    this.#reporter.events.off(name, listener);
  }

  /** A plain snapshot of counts, wait-time quantiles and rejections, total and per priority and tenant. */
  metrics(): MetricsSnapshot {
    const { metricsTenantLimit } = this.#options;
    const limit = this.maxConcurrency;
    const snapshot = this.#reporter.metrics(this.closed, limit, this.#store.snapshot(metricsTenantLimit));
    return withShares(snapshot, this.#options, this.#targets.effective, this.#targets.targets);
  }

  /** The limit in force: the fixed `maxConcurrency`, or where the adaptive limit stands now. */
  get maxConcurrency(): number {
    return this.#adaptive.limit ?? this.#options.maxConcurrency;
  }

  /** The options as configured, after defaults (a wait target's effective share is in `metrics()`). */
  get options(): ResolvedOptions {
    return this.#options;
  }

  get closed(): boolean {
    return this.#engine.closed;
  }

  /**
   * Changes limits and priorities while running; nothing queued or running is lost. Invalid values throw
   * (`INVALID_OPTION`) and change nothing. Queue deadlines already set stay as they were. While the
   * limit is adaptive, `maxConcurrency: 10` sets the limit in force (within the range; adaptation goes
   * on from there) and `maxConcurrency: { min, max }` sets a new range.
   *
   * @example
   * scheduler.update({ maxConcurrency: 12, priorities: { batch: { weight: 2 } } });
   */
  update(update: SchedulerUpdate): Promise<void> {
    const { update: rest, setTo } = splitLimitUpdate(this.#raw, update);
    const raw = mergeUpdate(this.#raw, rest);
    const resolved = resolveOptions(raw);
    this.#raw = raw;
    this.#options = resolved;
    this.#reporter.setPriorities(resolved.priorities);
    const configured = this.#engine.configure(this.#targets.reconfigure(resolved.waitTargets));
    this.#configureAdaptive(setTo);
    this.#adaptive.setReserved(reservedTotal(this.#targets.effective));
    return configured;
  }

  /**
   * Fires the queue, run and grace deadlines that are due and arms the scheduler's one timer afresh from
   * the caller. Only for runtimes where a timer belongs to the request that set it and ends with it
   * (Cloudflare Workers): the Hono middleware calls it from each waiting request there. Elsewhere it is
   * never needed.
   *
   * @example
   * setInterval(() => scheduler.rearm(), 500); // from a request that waits for its slot, on Workers
   */
  rearm(): void {
    this.#engine.rearm();
  }

  /** Resolves when nothing waits and nothing runs. */
  onIdle(): Promise<void> {
    return this.#engine.onIdle();
  }

  /**
   * Stops admitting (`CLOSED`), rejects or drains the queue, waits for running tasks (aborting them after
   * `timeoutMs`, then freeing their slots after `abortGraceMs`), and clears every timer.
   *
   * @example
   * await scheduler.close({ drain: true, timeoutMs: 30_000 });
   */
  close(options: CloseOptions = {}): Promise<void> {
    if (this.#closing !== null) return this.#closing;
    let resolved: { drain: boolean; timeoutMs: number };
    try {
      resolved = closeOptions(options);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#targets.dispose();
    this.#closing = this.#engine.close(resolved.drain, resolved.timeoutMs);
    return this.#closing;
  }
}

/**
 * Creates a scheduler. With no options: `maxConcurrency` 8 and two priorities, `interactive` (weight 5,
 * one reserved slot, 10 s queue timeout) and `batch` (weight 1, 10 min queue timeout, aging after 60 s).
 *
 * @example
 * const scheduler = createScheduler({
 *   maxConcurrency: 8,
 *   priorities: {
 *     interactive: { weight: 5, reserved: 2, queueTimeoutMs: 5_000, maxQueue: 1_000 },
 *     batch: { weight: 1, maxConcurrency: 6, queueTimeoutMs: 600_000, maxQueue: 100_000, maxWaitMs: 60_000 },
 *   },
 * });
 */
export function createScheduler(options: SchedulerOptions = {}): Scheduler {
  return new Scheduler(options);
}

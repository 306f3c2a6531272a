import { reservedTotal } from "./adaptive/effective-priorities.js";
import { AdaptiveLimit } from "./adaptive/observer.js";
import { withShares } from "./adaptive/share-metrics.js";
import { WaitTargets } from "./adaptive/wait-targets.js";
import type { TaskOptions } from "./admission.js";
import { type Configuration, configurationOf, planUpdate } from "./configuration.js";
import type { Listener } from "./emitter.js";
import { Engine } from "./engine.js";
import { ErrorCode, SchedulerError } from "./errors.js";
import type { SchedulerEvents } from "./events.js";
import { MemoryStore } from "./memory/memory-store.js";
import { type ResolvedOptions, SCHEDULER, type SchedulerOptions, type SchedulerUpdate } from "./options.js";
import type { Permit } from "./permit.js";
import { Reporter } from "./reporter.js";
import { duration, number } from "./schema/schema.js";
import type { MetricsSnapshot } from "./stats.js";
import { type Store, type StoreAbilities, storeAbilities } from "./store.js";
import type { TaskFunction } from "./task.js";
import { invalidOption, plainObject, rejectUnknownKeys } from "./validate.js";

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

const CLOSE_TIMEOUT = duration({ zero: true, doc: "how long `close()` waits for tasks" });

/** Validates `close()` options; throws `INVALID_OPTION`. */
function closeOptions(options: CloseOptions): { drain: boolean; timeoutMs: number } {
  const given = plainObject("close options", options ?? {});
  rejectUnknownKeys("", given, ["drain", "timeoutMs"]);
  const { drain = false, timeoutMs = 30_000 } = given as CloseOptions;
  if (typeof drain !== "boolean") throw invalidOption("drain", "a boolean", drain);
  return { drain, timeoutMs: CLOSE_TIMEOUT.check("timeoutMs", timeoutMs) };
}

/** What `upstreamLoad()` takes: held over run, 1 when the upstream does not queue. */
const UPSTREAM_LOAD = number(0, 1_000, { doc: "what the upstream holds over what it runs" });

/**
 * Decides when each request may go upstream: weighted fair sharing between priorities, reserved and
 * maximum concurrency per priority, aging, tenant turns, queue and run timeouts, and exactly-once
 * settlement. Create it with {@link createScheduler}. This class is the public face: the life of each
 * task is `Engine`'s, events and counters are `Reporter`'s, queues and picks are the store's.
 */
export class Scheduler {
  /** The one configuration in force, replaced whole by each accepted `update()`. */
  #config: Configuration;
  readonly #store: Store;
  readonly #abilities: StoreAbilities;
  readonly #reporter: Reporter;
  readonly #engine: Engine;
  readonly #adaptive: AdaptiveLimit;
  readonly #targets: WaitTargets;
  #closing: Promise<void> | null = null;

  constructor(options: SchedulerOptions = {}) {
    // (`null` options reach `configurationOf`, which names them)
    const store = (options as SchedulerOptions | null)?.store;
    this.#store = store === undefined ? new MemoryStore() : SCHEDULER.store.check("store", store);
    this.#abilities = storeAbilities(this.#store);
    this.#config = configurationOf(options, this.#abilities);
    const { clock, priorities } = this.#config.options;
    this.#reporter = new Reporter(clock, priorities);
    this.#engine = new Engine(this.#config.options, this.#store, this.#reporter);
    this.#adaptive = this.#adaptiveLimit();
    this.#configureAdaptive(undefined);
    this.#targets = new WaitTargets(
      {
        clock,
        events: this.#reporter.events,
        configured: () => this.#config.options,
        limit: () => this.maxConcurrency,
        runningCost: (priority) => this.#engine.runningCost(priority),
        apply: (effective) => {
          this.#adaptive.setReserved(reservedTotal(effective));
          if (!this.closed) void this.#engine.configure(effective); // a store failure is an `error` event
        },
      },
      this.#config.options.waitTargets,
    );
  }

  /** The adaptive limit's ties to this scheduler: its clock, its store, its events. */
  #adaptiveLimit(): AdaptiveLimit {
    const store = this.#store;
    const engine = this.#engine;
    const reporter = this.#reporter;
    const adjust = store.adjustLimit;
    return new AdaptiveLimit({
      clock: this.#config.options.clock,
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
    this.#adaptive.configure(this.#config.options.adaptive, setTo);
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

  /**
   * Feeds the adaptive limit the upstream's own reading of its load, taken elsewhere (a pool reads an
   * LLM engine's queue and KV cache from its metrics): `load` is the work the upstream holds over what
   * it runs at once (1: nothing waits inside it; 1.5: half as much again waits). A window through which
   * every reading was above 1 cuts the limit to `limit / load` (the lowest reading; a `limit` event with
   * reason `"upstream"`), and the delay controller remembers that limit as the knee; a window whose
   * readings were all at most 1 lets the limit grow even if it was not used fully. Ignored while the
   * limit is fixed. Throws `INVALID_OPTION` unless `load` is a number from 0 to 1,000.
   *
   * @example
   * const { waiting, running } = await readEngineMetrics(url);
   * replicaLimit.upstreamLoad(running === 0 ? 1 : (running + waiting) / running);
   */
  upstreamLoad(load: number): void {
    this.#adaptive.upstreamLoad(UPSTREAM_LOAD.check("load", load));
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
    const { options } = this.#config;
    const limit = this.maxConcurrency;
    const snapshot = this.#reporter.metrics(
      this.closed,
      limit,
      this.#store.snapshot(options.metricsTenantLimit),
    );
    return withShares(snapshot, options, this.#targets.effective, this.#targets.targets);
  }

  /** The limit in force: the fixed `maxConcurrency`, or where the adaptive limit stands now. */
  get maxConcurrency(): number {
    return this.#adaptive.limit ?? this.#config.options.maxConcurrency;
  }

  /**
   * The options as configured, after defaults, frozen (a wait target's effective share is in
   * `metrics()`). Each accepted `update()` replaces the whole object.
   */
  get options(): ResolvedOptions {
    return this.#config.options;
  }

  get closed(): boolean {
    return this.#engine.closed;
  }

  /**
   * Changes limits and priorities while running; nothing queued or running is lost. The whole new
   * configuration is checked first, against the store's abilities too: anything refused throws
   * `INVALID_OPTION` synchronously and changes nothing. Then it is taken whole; the promise resolves
   * once the store has it and never rejects (a store failure is an `error` event). Queue deadlines
   * already set stay as they were. While the limit is adaptive, `maxConcurrency: 10` sets the limit in
   * force (within the range; adaptation goes on from there) and `maxConcurrency: { min, max }` sets a
   * new range.
   *
   * @example
   * scheduler.update({ maxConcurrency: 12, priorities: { batch: { weight: 2 } } });
   */
  update(update: SchedulerUpdate): Promise<void> {
    return this.#commit(planUpdate(this.#config, update, this.#abilities));
  }

  /**
   * Puts a checked configuration in force, in every part (nothing in here refuses it), and the store
   * gets it in one `configure`, with the limit the adaptive limit moved to for it.
   */
  #commit(plan: ReturnType<typeof planUpdate>): Promise<void> {
    this.#config = plan.next;
    const { options } = plan.next;
    this.#reporter.setPriorities(options.priorities);
    return this.#engine.configureOnce(this.#targets.reconfigure(options.waitTargets), () => {
      this.#configureAdaptive(plan.setTo);
      this.#adaptive.setReserved(reservedTotal(this.#targets.effective));
    });
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

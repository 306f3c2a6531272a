import { admit, retryAfterMs, type TaskOptions } from "./admission.js";
import { Deadlines } from "./deadlines.js";
import { Emitter, type Listener } from "./emitter.js";
import { ErrorCode, isSchedulerError, rejection, SchedulerError } from "./errors.js";
import type { SchedulerEvents, TaskEventBase } from "./events.js";
import { MemoryStore } from "./memory/memory-store.js";
import {
  defaultPriorities,
  mergeUpdate,
  type ResolvedOptions,
  resolveOptions,
  type SchedulerOptions,
  type SchedulerUpdate,
} from "./options.js";
import { Permit, type PermitControl } from "./permit.js";
import { RecentIds } from "./recent-ids.js";
import { SignalListeners } from "./signal-listeners.js";
import { buildMetrics, type MetricsSnapshot, PriorityStats } from "./stats.js";
import {
  type EnqueueResult,
  isPromise,
  type MaybePromise,
  type Store,
  type StoreHost,
  type Ticket,
} from "./store.js";
import { DONE, PENDING, QUEUED, RUNNING, RunContext, Task, type TaskFunction } from "./task.js";

const noop = (): void => {};

/** Options of {@link Scheduler.close}. */
export interface CloseOptions {
  /** Let queued tasks run (`true`) or reject them with `CLOSED` at once (`false`). @default false */
  readonly drain?: boolean;
  /** After this long, queued tasks are rejected and running ones aborted (`CLOSED`). @default 30_000 */
  readonly timeoutMs?: number;
}

/**
 * Decides when each request may go upstream: weighted fair sharing between priorities, reserved and
 * maximum concurrency per priority, aging, tenant turns, queue and run timeouts, and exactly-once
 * settlement. Create it with {@link createScheduler}.
 */
export class Scheduler {
  #raw: SchedulerOptions;
  #options: ResolvedOptions;
  readonly #store: Store;
  readonly #deadlines: Deadlines<Task>;
  readonly #events: Emitter<SchedulerEvents>;
  readonly #stats = new Map<string, PriorityStats>();
  readonly #unprioritized: Partial<Record<ErrorCode, number>> = {};
  readonly #recent: RecentIds;
  readonly #running = new Set<Task>();
  readonly #signals = new SignalListeners();
  /** Clock time at construction; run start times are kept as whole ms after it. */
  readonly #origin: number;
  #seq = 0;
  #live = 0;
  #closed = false;
  #closing: Promise<void> | null = null;
  #idleWaiters: Array<() => void> = [];
  readonly #onAbort = (task: Task): void => this.#callerAborted(task);
  readonly #permitControl: PermitControl = {
    release: (task, failure) => this.#finish(task, failure === undefined, failure),
    abort: (task, reason) => {
      if (task.phase !== RUNNING) return;
      const error = rejection(ErrorCode.ABORTED, "The permit was aborted", {
        ...this.#about(task),
        cause: reason,
      });
      this.#abortRunning(task, error);
    },
  };

  constructor(options: SchedulerOptions = {}) {
    this.#options = resolveOptions(options);
    this.#raw = {
      ...options,
      priorities: options.priorities ?? defaultPriorities(this.#options.maxConcurrency),
    };
    const { clock } = this.#options;
    this.#origin = clock.now();
    this.#events = new Emitter((error) => this.#reportError(error));
    this.#deadlines = new Deadlines(clock, (task) => this.#expired(task));
    this.#recent = new RecentIds(this.#options.retryWindowMs, this.#options.retryMemory);
    for (const priority of this.#options.priorities) this.#stats.set(priority.name, new PriorityStats());
    this.#store = options.store ?? new MemoryStore();
    const host: StoreHost = {
      clock,
      grant: (ticket) => this.#granted(ticket as Task),
      fail: (ticket, error) => this.#storeDropped(ticket as Task, error),
      revoke: (ticket, error) => this.#storeRevoked(ticket as Task, error),
    };
    this.#settleStore(this.#store.attach(host, this.#options));
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
    return new Promise<T>((resolve, reject) => {
      if (typeof fn !== "function") {
        reject(new SchedulerError(ErrorCode.INVALID_OPTION, "Expected `fn` to be a function"));
        return;
      }
      this.#submit(fn as TaskFunction<unknown>, options, resolve as (value: unknown) => void, reject);
    });
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
    return new Promise<Permit>((resolve, reject) => {
      this.#submit(null, options, resolve as (value: unknown) => void, reject);
    });
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
    const tryGrant = this.#store.tryGrant;
    const task = this.#createTask(null, options, noop);
    if (tryGrant === undefined || !tryGrant.call(this.#store, task)) return undefined;
    task.resolve = null;
    this.#admitted(task);
    return this.#permitFor(task, this.#begin(task));
  }

  /** Adds a listener for a typed event; returns a function that removes it. */
  on<K extends keyof SchedulerEvents>(name: K, listener: Listener<SchedulerEvents, K>): () => void {
    return this.#events.on(name, listener);
  }

  off<K extends keyof SchedulerEvents>(name: K, listener: Listener<SchedulerEvents, K>): void {
    this.#events.off(name, listener);
  }

  /** A plain snapshot of counts, wait-time quantiles and rejections, total and per priority and tenant. */
  metrics(): MetricsSnapshot {
    const { clock, maxConcurrency, metricsTenantLimit } = this.#options;
    const store = this.#store.snapshot(metricsTenantLimit);
    return buildMetrics(clock.now(), this.#closed, maxConcurrency, store, this.#stats, this.#unprioritized);
  }

  /** The options in force, after defaults. */
  get options(): ResolvedOptions {
    return this.#options;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Changes limits and priorities while running; nothing queued or running is lost. Invalid values throw
   * (`INVALID_OPTION`) and change nothing. Queue deadlines already set stay as they were.
   *
   * @example
   * scheduler.update({ maxConcurrency: 12, priorities: { batch: { weight: 2 } } });
   */
  update(update: SchedulerUpdate): Promise<void> {
    const raw = mergeUpdate(this.#raw, update);
    const resolved = resolveOptions(raw);
    this.#raw = raw;
    this.#options = resolved;
    for (const priority of resolved.priorities) {
      if (!this.#stats.has(priority.name)) this.#stats.set(priority.name, new PriorityStats());
    }
    return Promise.resolve(this.#store.configure(resolved));
  }

  /** Resolves when nothing waits and nothing runs. */
  onIdle(): Promise<void> {
    if (this.#live === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
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
    this.#closed = true;
    const { clock } = this.#options;
    const timer = clock.setTimer(() => this.#forceClose(), options.timeoutMs ?? 30_000);
    const queuedGone = options.drain === true ? undefined : this.#rejectQueued();
    this.#closing = Promise.resolve(queuedGone)
      .then(() => this.onIdle())
      .then(async () => {
        clock.clearTimer(timer);
        this.#deadlines.dispose();
        await this.#store.detach();
      });
    return this.#closing;
  }

  #submit(
    fn: TaskFunction<unknown> | null,
    options: TaskOptions,
    resolve: (v: unknown) => void,
    reject: (e: unknown) => void,
  ): void {
    let task: Task;
    try {
      task = this.#createTask(fn, options, resolve);
    } catch (error) {
      reject(error);
      return;
    }
    this.#admitted(task);
    this.#enqueue(task);
  }

  /** Validates one call's options and builds its record; throws (and counts) a refusal. */
  #createTask(fn: TaskFunction<unknown> | null, options: TaskOptions, resolve: (v: unknown) => void): Task {
    const given = options ?? {};
    try {
      if (this.#closed)
        throw new SchedulerError(ErrorCode.CLOSED, "The scheduler is closed", { id: given.id });
      const admitted = admit(given, this.#options);
      const signal = given.signal ?? null;
      if (signal?.aborted) {
        throw new SchedulerError(ErrorCode.ABORTED, "The task's signal was aborted before it was queued", {
          cause: signal.reason,
          id: admitted.id,
          priority: admitted.priority.name,
        });
      }
      const now = this.#options.clock.now();
      const retry =
        given.retry === true || (admitted.id !== undefined && this.#recent.take(admitted.id, now));
      return new Task(++this.#seq, {
        priority: admitted.priority.name,
        tenant: admitted.tenant,
        cost: admitted.cost,
        retry,
        enqueuedAt: now,
        timeoutMs: admitted.timeoutMs,
        id: admitted.id,
        signal,
        fn,
        resolve,
        onAbort: this.#onAbort,
      });
    } catch (error) {
      if (error instanceof SchedulerError) this.#countRefusal(error, given.priority);
      throw error;
    }
  }

  /** The task is on the books from here until it retires. */
  #admitted(task: Task): void {
    this.#live++;
    if (task.signal !== null) this.#signals.add(task.signal, task);
  }

  #enqueue(task: Task): void {
    let result: MaybePromise<EnqueueResult>;
    try {
      result = this.#store.enqueue(task);
    } catch (error) {
      this.#storeFailed(task, error);
      return;
    }
    if (!isPromise(result)) {
      this.#enqueued(task, result);
      return;
    }
    this.#queue(task);
    result.then(
      (answer) => this.#enqueued(task, answer),
      (error: unknown) => this.#storeFailed(task, error),
    );
  }

  #enqueued(task: Task, result: EnqueueResult): void {
    if (result === "granted") {
      this.#granted(task);
    } else if (result === "full") {
      this.#reject(task, ErrorCode.QUEUE_FULL, `The ${task.priority} queue is full`);
      this.#retire(task);
    } else if (task.phase === PENDING) {
      this.#queue(task);
    } else if (task.phase === QUEUED && task.settled) {
      this.#dequeue(task); // settled while the store was still answering: take the ticket back out
    }
  }

  #queue(task: Task): void {
    if (task.phase !== PENDING) return;
    task.phase = QUEUED;
    const priority = this.#options.priorityByName.get(task.priority)!;
    this.#deadlines.set(task, task.enqueuedAt + priority.queueTimeoutMs);
    if (this.#events.has("queued"))
      this.#events.emit("queued", { ...this.#describe(task), retry: task.retry });
  }

  /** The store granted a slot. Start the task, or give the slot straight back if nobody waits for it. */
  #granted(task: Task): void {
    if (task.phase === RUNNING) return;
    if (task.phase === DONE) {
      try {
        this.#settleStore(this.#store.release(task)); // a late grant for a task already given up
      } catch (error) {
        this.#reportError(error);
      }
      return;
    }
    task.phase = RUNNING;
    this.#deadlines.clear(task);
    if (task.settled) {
      this.#release(task);
      return;
    }
    const waitMs = this.#begin(task);
    const fn = task.fn;
    if (fn === null) {
      task.resolve!(this.#permitFor(task, waitMs));
      return;
    }
    let result: unknown;
    try {
      result = fn(new RunContext(task, waitMs));
    } catch (error) {
      this.#finish(task, false, error);
      return;
    }
    if (isPromise(result)) {
      result.then(
        (value) => this.#finish(task, true, value),
        (error: unknown) => this.#finish(task, false, error),
      );
    } else {
      this.#finish(task, true, result);
    }
  }

  /** Bookkeeping of a start: the run deadline, counters, the `started` event. Returns the wait. */
  #begin(task: Task): number {
    task.phase = RUNNING;
    const now = this.#options.clock.now();
    const waitMs = now - task.enqueuedAt;
    task.startedAt = Math.round(now - this.#origin);
    this.#running.add(task);
    this.#stats.get(task.priority)?.recordStart(now, waitMs);
    if (task.timeoutMs !== 0) this.#deadlines.set(task, now + task.timeoutMs);
    if (this.#events.has("started")) this.#events.emit("started", { ...this.#describe(task), waitMs });
    return waitMs;
  }

  #permitFor(task: Task, waitMs: number): Permit {
    task.settled = true;
    return new Permit(task, waitMs, this.#permitControl);
  }

  /** The task's function settled (or the permit was released): answer the caller, free the slot. */
  #finish(task: Task, ok: boolean, value: unknown): void {
    if (task.phase !== RUNNING) return;
    const stats = this.#stats.get(task.priority);
    const aborted = task.aborted;
    if (ok && !aborted) {
      if (stats) stats.completed++;
      if (this.#events.has("completed"))
        this.#events.emit("completed", { ...this.#describe(task), ...this.#timings(task) });
    } else if (!aborted) {
      this.#countFailure(task, value);
    }
    if (!task.settled) {
      task.settled = true;
      if (ok) task.resolve!(value);
      else task.rejectWith(value);
    }
    this.#release(task);
  }

  #countFailure(task: Task, error: unknown): void {
    const stats = this.#stats.get(task.priority);
    if (stats) stats.failed++;
    if (this.#events.has("failed")) {
      const code = error instanceof SchedulerError ? error.code : undefined;
      this.#events.emit("failed", { ...this.#describe(task), ...this.#timings(task), error, code });
    }
  }

  /** Frees the slot, exactly once. */
  #release(task: Task): void {
    if (task.phase !== RUNNING) return;
    this.#running.delete(task);
    this.#retire(task);
    try {
      this.#settleStore(this.#store.release(task));
    } catch (error) {
      this.#reportError(error);
    }
  }

  /** The task leaves the scheduler's books: no deadline, no listener, no references kept. */
  #retire(task: Task): void {
    if (task.phase === DONE) return;
    task.phase = DONE;
    this.#deadlines.clear(task);
    if (task.signal !== null) this.#signals.remove(task.signal, task);
    task.fn = null;
    task.resolve = null;
    if (--this.#live === 0) this.#becameIdle();
  }

  #becameIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
    if (this.#events.has("idle")) this.#events.emit("idle", { at: this.#options.clock.now() });
  }

  /** One deadline fired: queue timeout, run timeout, or the end of an abort's grace. */
  #expired(task: Task): void {
    if (task.phase === QUEUED || task.phase === PENDING) {
      if (task.settled) return;
      this.#reject(task, ErrorCode.QUEUE_TIMEOUT, `Waited longer than the ${task.priority} queue timeout`);
      this.#dequeue(task);
    } else if (task.phase === RUNNING) {
      if (task.aborted) {
        this.#stats.get(task.priority)!.overruns++;
        const heldMs = this.#options.clock.now() - this.#origin - task.startedAt;
        if (this.#events.has("overrun")) this.#events.emit("overrun", { ...this.#describe(task), heldMs });
        this.#release(task);
      } else {
        if (task.givenId !== undefined) this.#recent.remember(task.givenId, this.#options.clock.now());
        this.#abortRunning(
          task,
          rejection(ErrorCode.RUN_TIMEOUT, `Ran longer than ${task.timeoutMs} ms`, this.#about(task)),
        );
      }
    }
  }

  #callerAborted(task: Task): void {
    const error = rejection(ErrorCode.ABORTED, "The task's signal was aborted", {
      ...this.#about(task),
      cause: task.signal?.reason,
    });
    if (task.phase === QUEUED || task.phase === PENDING) {
      if (task.settled) return;
      this.#reject(task, error);
      this.#dequeue(task);
    } else if (task.phase === RUNNING) {
      this.#abortRunning(task, error);
    }
  }

  /** Stops a running task: the caller hears at once, the slot stays taken until it settles or the grace ends. */
  #abortRunning(task: Task, error: SchedulerError): void {
    if (task.aborted) return;
    if (!task.settled) {
      task.settled = true;
      this.#countFailure(task, error);
      task.rejectWith(error);
    } else if (task.fn === null) {
      this.#countFailure(task, error); // a permit: its holder already has it, the work failed all the same
    }
    task.abort(error);
    if (task.phase === RUNNING)
      this.#deadlines.set(task, this.#options.clock.now() + this.#options.abortGraceMs);
  }

  /** Takes a settled task's ticket out of the store's queue; if it was granted meanwhile, the grant frees it. */
  #dequeue(task: Task): void {
    this.#deadlines.clear(task);
    let removed: MaybePromise<boolean>;
    try {
      removed = this.#store.remove(task);
    } catch (error) {
      this.#dequeueFailed(task, error);
      return;
    }
    if (!isPromise(removed)) this.#dequeued(task, removed);
    else
      removed.then(
        (gone) => this.#dequeued(task, gone),
        (error: unknown) => this.#dequeueFailed(task, error),
      );
  }

  #dequeued(task: Task, gone: boolean): void {
    if (gone && task.phase !== RUNNING) this.#retire(task);
  }

  /**
   * The store could not say whether the ticket left: keep no record that would hold close() open; a
   * grant that still arrives for it is handed straight back (see #granted).
   */
  #dequeueFailed(task: Task, error: unknown): void {
    this.#reportError(error);
    this.#dequeued(task, true);
  }

  /** Answers a caller whose task never started. */
  #reject(task: Task, codeOrError: ErrorCode | SchedulerError, message = ""): void {
    if (task.settled) return;
    task.settled = true;
    const now = this.#options.clock.now();
    const stats = this.#stats.get(task.priority)!;
    let error = codeOrError;
    if (typeof error === "string") {
      error = rejection(error, message, { ...this.#about(task), retryAfterMs: this.#retryEstimate(task) });
      if (task.givenId !== undefined) this.#recent.remember(task.givenId, now);
    }
    stats.recordRejection(error.code);
    if (this.#events.has("rejected")) {
      const event = {
        ...this.#describe(task),
        code: error.code,
        waitMs: now - task.enqueuedAt,
        retryAfterMs: error.retryAfterMs,
      };
      this.#events.emit("rejected", event);
    }
    task.rejectWith(error);
  }

  #storeFailed(task: Task, cause: unknown): void {
    this.#reject(task, this.#storeError(task, cause, "The scheduler's store is unavailable"));
    if (task.phase !== RUNNING) this.#retire(task);
  }

  /** The store dropped a waiting ticket: answer its caller. */
  #storeDropped(task: Task, cause: unknown): void {
    if (task.phase !== QUEUED && task.phase !== PENDING) return;
    this.#reject(task, this.#storeError(task, cause, "The scheduler's store dropped the task"));
    this.#retire(task);
  }

  /** The store took a granted slot back: stop the task; its slot is no longer ours to release. */
  #storeRevoked(task: Task, cause: unknown): void {
    if (task.phase !== RUNNING) return;
    this.#abortRunning(task, this.#storeError(task, cause, "The scheduler's store revoked the task's slot"));
    this.#running.delete(task);
    this.#retire(task);
  }

  /** The store's own SchedulerError, or STORE_UNAVAILABLE with the store's reason as cause. */
  #storeError(task: Task, cause: unknown, message: string): SchedulerError {
    if (!isSchedulerError(cause)) {
      return rejection(ErrorCode.STORE_UNAVAILABLE, message, {
        ...this.#about(task),
        cause,
        retryAfterMs: 1_000,
      });
    }
    if (cause.id !== undefined && cause.retryAfterMs !== undefined) return cause;
    // The store knows the code; the scheduler adds the task's id and, if missing, its own retry estimate.
    const retryAfterMs = cause.retryAfterMs ?? this.#retryEstimate(task);
    return rejection(cause.code, cause.message, { ...this.#about(task), cause: cause.cause, retryAfterMs });
  }

  /** The retry estimate from the priority's measured start rate (see `retryAfterMs`). */
  #retryEstimate(task: Task): number | undefined {
    const priority = this.#options.priorityByName.get(task.priority);
    const stats = this.#stats.get(task.priority);
    if (priority === undefined || stats === undefined) return undefined;
    return retryAfterMs(priority, stats, this.#store.depth(task.priority), this.#options.clock.now());
  }

  #rejectQueued(): Promise<void> | undefined {
    const reject = (tickets: Ticket[]): void => {
      for (const ticket of tickets) {
        const task = ticket as Task;
        this.#reject(
          task,
          rejection(ErrorCode.CLOSED, "The scheduler closed before the task started", this.#about(task)),
        );
        if (task.phase !== RUNNING) this.#retire(task);
      }
    };
    const all = this.#store.removeAll();
    if (!isPromise(all)) return void reject(all);
    return all.then(reject, (error: unknown) => this.#reportError(error));
  }

  #forceClose(): void {
    void this.#rejectQueued();
    for (const task of [...this.#running]) {
      this.#abortRunning(
        task,
        rejection(ErrorCode.CLOSED, "The scheduler closed while the task ran", this.#about(task)),
      );
    }
  }

  #countRefusal(error: SchedulerError, priority: string | undefined): void {
    const stats = priority === undefined ? undefined : this.#stats.get(priority);
    if (stats) stats.recordRejection(error.code);
    else this.#unprioritized[error.code] = (this.#unprioritized[error.code] ?? 0) + 1;
  }

  #settleStore(result: MaybePromise<unknown>): void {
    if (isPromise(result)) result.then(undefined, (error: unknown) => this.#reportError(error));
  }

  #reportError(error: unknown): void {
    if (this.#events.has("error")) this.#events.emit("error", { error });
  }

  #about(task: Task): { id: string; priority: string } {
    return { id: task.id, priority: task.priority };
  }

  #describe(task: Task): TaskEventBase {
    return { id: task.id, priority: task.priority, tenant: task.tenant, cost: task.cost };
  }

  #timings(task: Task): { waitMs: number; runMs: number } {
    const startedAt = this.#origin + task.startedAt;
    return { waitMs: Math.max(0, startedAt - task.enqueuedAt), runMs: this.#options.clock.now() - startedAt };
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

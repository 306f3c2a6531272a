import { admit, type TaskOptions } from "./admission.js";
import { Deadlines } from "./deadlines.js";
import { ErrorCode, isSchedulerError, rejection, SchedulerError } from "./errors.js";
import type { ResolvedOptions } from "./options.js";
import { Permit, type PermitControl } from "./permit.js";
import { RecentIds } from "./recent-ids.js";
import type { Reporter } from "./reporter.js";
import { SignalListeners } from "./signal-listeners.js";
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

/**
 * The life of every task, from admission to retirement: `admit -> queue -> grant -> run -> settle`,
 * with queue and run deadlines, the caller's aborts, the grace after an abort, and the store's own
 * decisions (grant, drop, revoke). Every transition checks the task's phase, so each task settles once
 * and each slot is released once whatever order timers, aborts, completions, `update()` and `close()`
 * come in. The `Scheduler` is the public face of this class.
 */
export class Engine {
  #options: ResolvedOptions;
  readonly #store: Store;
  readonly #reporter: Reporter;
  readonly #deadlines: Deadlines<Task>;
  readonly #recent: RecentIds;
  readonly #running = new Set<Task>();
  readonly #signals = new SignalListeners();
  #seq = 0;
  #live = 0;
  #closed = false;
  #idleWaiters: Array<() => void> = [];
  readonly #onAbort = (task: Task): void => this.#callerAborted(task);
  readonly #permitControl: PermitControl = {
    release: (task, failure) => this.#finish(task, failure === undefined, failure),
    abort: (task, reason) => {
      if (task.phase !== RUNNING) return;
      this.#abortRunning(
        task,
        rejection(ErrorCode.ABORTED, "The permit was aborted", { ...about(task), cause: reason }),
      );
    },
  };

  constructor(options: ResolvedOptions, store: Store, reporter: Reporter) {
    this.#options = options;
    this.#store = store;
    this.#reporter = reporter;
    this.#deadlines = new Deadlines(options.clock, (task) => this.#expired(task));
    this.#recent = new RecentIds(options.retryWindowMs, options.retryMemory);
    const host: StoreHost = {
      clock: options.clock,
      grant: (ticket) => this.#granted(ticket as Task),
      fail: (ticket, error) => this.#storeDropped(ticket as Task, error),
      revoke: (ticket, error) => this.#storeRevoked(ticket as Task, error),
    };
    this.#settleStore(store.attach(host, options));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** New options from `update()`: the store re-evaluates what waits. */
  configure(options: ResolvedOptions): MaybePromise<void> {
    this.#options = options;
    return this.#store.configure(options);
  }

  /** Admits a task (or a permit request when `fn` is null) and answers through `resolve`/`reject`. */
  submit(
    fn: TaskFunction<unknown> | null,
    options: TaskOptions,
    resolve: (v: unknown) => void,
    reject: (e: unknown) => void,
  ): void {
    this.#submit(fn, options, resolve, reject);
  }

  /** A permit at once when the store grants one synchronously; see `Scheduler.tryAcquire`. */
  tryAcquire(options: TaskOptions): Permit | undefined {
    const tryGrant = this.#store.tryGrant;
    const task = this.#createTask(null, options, noop);
    if (tryGrant === undefined || !tryGrant.call(this.#store, task)) return undefined;
    task.resolve = null;
    this.#admitted(task);
    return this.#permitFor(task, this.#begin(task));
  }

  onIdle(): Promise<void> {
    if (this.#live === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops admitting; rejects (or, draining, keeps) the queue; after `timeoutMs` stops everything. */
  close(drain: boolean, timeoutMs: number): Promise<void> {
    this.#closed = true;
    const { clock } = this.#options;
    const timer = clock.setTimer(() => this.#forceClose(), timeoutMs);
    const queuedGone = drain ? undefined : this.#rejectQueued();
    return Promise.resolve(queuedGone)
      .then(() => this.onIdle())
      .then(async () => {
        clock.clearTimer(timer);
        this.#deadlines.dispose();
        await this.#store.detach();
      });
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
      if (error instanceof SchedulerError) this.#reporter.refused(error, given.priority);
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
    this.#reporter.queued(task);
  }

  /** The store granted a slot. Start the task, or give the slot straight back if nobody waits for it. */
  #granted(task: Task): void {
    if (task.phase === RUNNING) return;
    if (task.phase === DONE) {
      try {
        this.#settleStore(this.#store.release(task)); // a late grant for a task already given up
      } catch (error) {
        this.#reporter.error(error);
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
    task.startedAt = Math.round(now - this.#reporter.origin);
    this.#running.add(task);
    if (task.timeoutMs !== 0) this.#deadlines.set(task, now + task.timeoutMs);
    this.#reporter.started(task, now, waitMs);
    return waitMs;
  }

  #permitFor(task: Task, waitMs: number): Permit {
    task.settled = true;
    return new Permit(task, waitMs, this.#permitControl);
  }

  /** The task's function settled (or the permit was released): answer the caller, free the slot. */
  #finish(task: Task, ok: boolean, value: unknown): void {
    if (task.phase !== RUNNING) return;
    const aborted = task.aborted;
    if (ok && !aborted) this.#reporter.completed(task);
    else if (!aborted) this.#reporter.failed(task, value);
    if (!task.settled) {
      task.settled = true;
      if (ok) task.resolve!(value);
      else task.rejectWith(value);
    }
    this.#release(task);
  }

  /** Frees the slot, exactly once. */
  #release(task: Task): void {
    if (task.phase !== RUNNING) return;
    this.#running.delete(task);
    this.#retire(task);
    try {
      this.#settleStore(this.#store.release(task));
    } catch (error) {
      this.#reporter.error(error);
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
    this.#reporter.idle();
  }

  /** One deadline fired: queue timeout, run timeout, or the end of an abort's grace. */
  #expired(task: Task): void {
    if (task.phase === QUEUED || task.phase === PENDING) {
      if (task.settled) return;
      this.#reject(task, ErrorCode.QUEUE_TIMEOUT, `Waited longer than the ${task.priority} queue timeout`);
      this.#dequeue(task);
    } else if (task.phase === RUNNING) {
      if (task.aborted) {
        this.#reporter.overrun(task);
        this.#release(task);
      } else {
        if (task.givenId !== undefined) this.#recent.remember(task.givenId, this.#options.clock.now());
        this.#abortRunning(
          task,
          rejection(ErrorCode.RUN_TIMEOUT, `Ran longer than ${task.timeoutMs} ms`, about(task)),
        );
      }
    }
  }

  #callerAborted(task: Task): void {
    const error = rejection(ErrorCode.ABORTED, "The task's signal was aborted", {
      ...about(task),
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
      this.#reporter.failed(task, error);
      task.rejectWith(error);
    } else if (task.fn === null) {
      this.#reporter.failed(task, error); // a permit: its holder already has it, the work failed all the same
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
    this.#reporter.error(error);
    this.#dequeued(task, true);
  }

  /** Answers a caller whose task never started. */
  #reject(task: Task, codeOrError: ErrorCode | SchedulerError, message = ""): void {
    if (task.settled) return;
    task.settled = true;
    const now = this.#options.clock.now();
    let error = codeOrError;
    if (typeof error === "string") {
      error = rejection(error, message, { ...about(task), retryAfterMs: this.#retryEstimate(task) });
      if (task.givenId !== undefined) this.#recent.remember(task.givenId, now);
    }
    this.#reporter.rejected(task, error, now);
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
        ...about(task),
        cause,
        retryAfterMs: 1_000,
      });
    }
    if (cause.id !== undefined && cause.retryAfterMs !== undefined) return cause;
    // The store knows the code; the scheduler adds the task's id and, if missing, its own retry estimate.
    const retryAfterMs = cause.retryAfterMs ?? this.#retryEstimate(task);
    return rejection(cause.code, cause.message, { ...about(task), cause: cause.cause, retryAfterMs });
  }

  /** The retry estimate from the priority's measured start rate (see `retryAfterMs`). */
  #retryEstimate(task: Task): number | undefined {
    const priority = this.#options.priorityByName.get(task.priority);
    return this.#reporter.retryAfter(priority, this.#store.depth(task.priority));
  }

  #rejectQueued(): Promise<void> | undefined {
    const reject = (tickets: Ticket[]): void => {
      for (const ticket of tickets) {
        const task = ticket as Task;
        this.#reject(
          task,
          rejection(ErrorCode.CLOSED, "The scheduler closed before the task started", about(task)),
        );
        if (task.phase !== RUNNING) this.#retire(task);
      }
    };
    const all = this.#store.removeAll();
    if (!isPromise(all)) return void reject(all);
    return all.then(reject, (error: unknown) => this.#reporter.error(error));
  }

  #forceClose(): void {
    void this.#rejectQueued();
    for (const task of [...this.#running]) {
      this.#abortRunning(
        task,
        rejection(ErrorCode.CLOSED, "The scheduler closed while the task ran", about(task)),
      );
    }
  }

  #settleStore(result: MaybePromise<unknown>): void {
    if (isPromise(result)) result.then(undefined, (error: unknown) => this.#reporter.error(error));
  }
}

function about(task: Task): { id: string; priority: string } {
  return { id: task.id, priority: task.priority };
}

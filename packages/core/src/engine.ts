import { admit, type TaskOptions } from "./admission.js";
import { Deadlines } from "./deadlines.js";
import { Endings } from "./endings.js";
import { ErrorCode, rejection, SchedulerError } from "./errors.js";
import type { ResolvedOptions } from "./options.js";
import { Permit, type PermitControl } from "./permit.js";
import { RecentIds } from "./recent-ids.js";
import type { Reporter } from "./reporter.js";
import { SignalListeners } from "./signal-listeners.js";
import { type EnqueueResult, isPromise, type MaybePromise, type Store, type StoreHost } from "./store.js";
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
  readonly #endings: Endings;
  readonly #running = new Set<Task>();
  readonly #signals = new SignalListeners();
  #seq = 0;
  #live = 0;
  #closed = false;
  #idleWaiters: Array<() => void> = [];
  readonly #onAbort = (task: Task): void => this.#endings.callerAborted(task);
  readonly #permitControl: PermitControl = {
    firstByte: (task, waitMs) => {
      if (task.phase === RUNNING) this.#reporter.firstByte(task, waitMs);
    },
    wantsFirstByte: () => this.#reporter.wantsFirstByte,
    release: (task, failure) => this.#finish(task, failure === undefined, failure),
    abort: (task, reason) => {
      if (task.phase !== RUNNING) return;
      this.#endings.abortRunning(
        task,
        rejection(ErrorCode.ABORTED, "The permit was aborted", { ...about(task), cause: reason }),
      );
    },
  };

  constructor(options: ResolvedOptions, store: Store, reporter: Reporter) {
    this.#options = options;
    this.#store = store;
    this.#reporter = reporter;
    this.#deadlines = new Deadlines(options.clock, (task) => this.#endings.expired(task));
    this.#recent = new RecentIds(options.retryWindowMs, options.retryMemory);
    const engine = this;
    this.#endings = new Endings({
      get options() {
        return engine.#options;
      },
      store,
      reporter,
      recent: this.#recent,
      deadlines: this.#deadlines,
      running: this.#running,
      release: (task) => this.#release(task),
      retire: (task) => this.#retire(task),
    });
    const host: StoreHost = {
      clock: options.clock,
      grant: (ticket) => this.#granted(ticket as Task),
      fail: (ticket, error) => this.#endings.storeDropped(ticket as Task, error),
      revoke: (ticket, error) => this.#endings.storeRevoked(ticket as Task, error),
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

  /** A permit at once when the store grants one synchronously; see `Scheduler.tryAcquire`. */
  tryAcquire(options: TaskOptions): Permit | undefined {
    const tryGrant = this.#store.tryGrant;
    const task = this.#createTask(null, options, noop);
    if (tryGrant === undefined || !tryGrant.call(this.#store, task)) return undefined;
    task.resolve = null;
    this.#admitted(task);
    return this.#permitFor(task, this.#begin(task, task.enqueuedAt)); // granted when asked: no wait
  }

  onIdle(): Promise<void> {
    if (this.#live === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops admitting; rejects (or, draining, keeps) the queue; after `timeoutMs` stops everything. */
  close(drain: boolean, timeoutMs: number): Promise<void> {
    this.#closed = true;
    const { clock } = this.#options;
    const timer = clock.setTimer(() => this.#endings.forceClose(), timeoutMs);
    const queuedGone = drain ? undefined : this.#endings.rejectQueued();
    return Promise.resolve(queuedGone)
      .then(() => this.onIdle())
      .then(async () => {
        clock.clearTimer(timer);
        this.#deadlines.dispose();
        await this.#store.detach();
      });
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
      this.#endings.storeFailed(task, error);
      return;
    }
    if (!isPromise(result)) {
      this.#enqueued(task, result);
      return;
    }
    this.#queue(task);
    result.then(
      (answer) => this.#enqueued(task, answer),
      (error: unknown) => this.#endings.storeFailed(task, error),
    );
  }

  #enqueued(task: Task, result: EnqueueResult): void {
    if (result === "granted") {
      this.#granted(task);
    } else if (result === "full") {
      this.#endings.reject(task, ErrorCode.QUEUE_FULL, `The ${task.priority} queue is full`);
      this.#retire(task);
    } else if (task.phase === PENDING) {
      this.#queue(task);
    } else if (task.phase === QUEUED && task.settled) {
      this.#endings.dequeue(task); // settled while the store was still answering: take the ticket back out
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
      this.#giveBack(task); // a late grant for a task already given up
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
  #begin(task: Task, now = this.#options.clock.now()): number {
    task.phase = RUNNING;
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
    this.#giveBack(task);
  }

  /** Hands a slot back to the store; a store failure is reported, never thrown into the caller. */
  #giveBack(task: Task): void {
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
    if (waiters.length > 0) {
      this.#idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
    this.#reporter.idle();
  }

  #settleStore(result: MaybePromise<unknown>): void {
    if (isPromise(result)) result.then(undefined, (error: unknown) => this.#reporter.error(error));
  }
}

function about(task: Task): { id: string; priority: string } {
  return { id: task.id, priority: task.priority };
}

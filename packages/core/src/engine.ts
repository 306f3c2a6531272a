import type { TaskOptions } from "./admission.js";
import { setLongTimer } from "./clock.js";
import { Deadlines } from "./deadlines.js";
import { Endings } from "./endings.js";
import { ErrorCode, SchedulerError } from "./errors.js";
import type { DeadlineFifo } from "./fifo-deadlines.js";
import { Intake } from "./intake.js";
import type { ResolvedOptions } from "./options.js";
import { Permit, type PermitControl } from "./permit.js";
import { permitControl } from "./permit-control.js";
import { Preemption } from "./preemption.js";
import type { Reporter } from "./reporter.js";
import { RunningTasks } from "./running-tasks.js";
import { SignalListeners } from "./signal-listeners.js";
import { type EnqueueResult, isPromise, type MaybePromise, type Store, type StoreHost } from "./store.js";
import { type LiveSettings, StoreConfiguration } from "./store-configuration.js";
import {
  callTaskFunction,
  DONE,
  PENDING,
  QUEUED,
  RUNNING,
  RunContext,
  type Task,
  type TaskFunction,
} from "./task.js";

const noop = (): void => {};
/**
 * Where a task's queue deadline goes: its priority's FIFO. One function for every engine, so that the
 * deadlines' compiled code, which calls it for every queued task, serves the next fresh instance too.
 */
const queueDeadlinesOf = (task: Task): DeadlineFifo<Task> => task.book.queueDeadlines;

/**
 * The life of every task, from admission to retirement: `admit -> queue -> grant -> run -> settle`,
 * with queue and run deadlines, the caller's aborts, the grace after an abort, and the store's own
 * decisions (grant, drop, revoke). Every transition checks the task's phase, so each task settles once
 * and each slot is released once whatever order timers, aborts, completions, `update()` and `close()`
 * come in. The `Scheduler` is the public face of this class.
 */
export class Engine {
  readonly #configuration: StoreConfiguration;
  readonly #store: Store;
  readonly #reporter: Reporter;
  readonly #deadlines: Deadlines<Task>;
  readonly #intake: Intake;
  readonly #endings: Endings;
  readonly #preemption: Preemption;
  readonly #running = new RunningTasks();
  readonly #signals = new SignalListeners();
  #live = 0;
  #closed = false;
  #draining = false;
  #idleWaiters: Array<() => void> = [];
  readonly #onAbort = (task: Task): void => this.#endings.callerAborted(task);
  readonly #permitControl: PermitControl;

  /** `options` must have been checked against `store` (see `configurationOf`). */
  constructor(options: ResolvedOptions, store: Store, reporter: Reporter) {
    this.#configuration = new StoreConfiguration(options, store, reporter);
    this.#store = store;
    this.#reporter = reporter;
    this.#deadlines = new Deadlines(options.clock, (task) => this.#endings.expired(task), queueDeadlinesOf);
    this.#intake = new Intake(options, reporter, this.#onAbort);
    const engine = this;
    // What the engine's parts (endings, preemption, the permits' control) share of it: one object
    // serves each part's host interface.
    const books = {
      get options() {
        return engine.#options;
      },
      store,
      reporter,
      recent: this.#intake.recent,
      credits: this.#intake.credits,
      deadlines: this.#deadlines,
      running: this.#running,
      get endings() {
        return engine.#endings;
      },
      get preemption() {
        return engine.#preemption;
      },
      get rejectsQueued() {
        return engine.#closed && !engine.#draining;
      },
      release: (task: Task) => this.#release(task),
      retire: (task: Task) => this.#retire(task),
      giveBack: (task: Task) => this.#giveBack(task),
      storeFailed: (task: Task, error: unknown) => this.#endings.storeFailed(task, error),
      finish: (task: Task, ok: boolean, value: unknown) => this.#finish(task, ok, value),
      settleStore: (result: MaybePromise<unknown>) => this.#settleStore(result),
    };
    this.#endings = new Endings(books);
    this.#preemption = new Preemption(books);
    this.#permitControl = permitControl(books);
    const host: StoreHost = {
      clock: options.clock,
      grant: (ticket, now) => this.#granted(ticket as Task, now),
      fail: (ticket, error) => this.#endings.storeDropped(ticket as Task, error),
      revoke: (ticket, error) => this.#endings.storeRevoked(ticket as Task, error),
      preempt: (ticket, by) => this.#preemption.stopFor(ticket as Task, by),
    };
    this.#settleStore(store.attach(host, this.#configuration.forStore()));
  }

  /** The options in force. */
  get #options(): ResolvedOptions {
    return this.#configuration.options;
  }

  /** Units running on this instance now. */
  get runningUnits(): number {
    return this.#running.totalCost;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Cost units of `priority` running on this instance now. */
  runningCost(priority: string): number {
    return this.#reporter.bookOf(priority)?.runningCost ?? 0;
  }

  /** New effective options (see `StoreConfiguration.configure`). */
  configure(options: ResolvedOptions): Promise<void> {
    return this.#configuration.configure(options);
  }

  /** One update, one store configuration (see `StoreConfiguration.configureOnce`). */
  configureOnce(options: ResolvedOptions, change: () => void): Promise<void> {
    return this.#configuration.configureOnce(options, change);
  }

  /** A value an automatic control set (see `StoreConfiguration.setLive`). */
  setLive(settings: LiveSettings, options?: ResolvedOptions): void {
    this.#configuration.setLive(settings, options);
  }

  /**
   * Admits a task (or a permit request when `fn` is null); the promise settles with its outcome (a
   * permit for a permit request), or rejects at once for invalid options or a closed scheduler.
   */
  submit(fn: TaskFunction<unknown> | null, options: TaskOptions): Promise<unknown> {
    let task: Task;
    try {
      task = this.#intake.create(this.#options, this.#closed, fn, options, noop, true);
      this.#admitted(task);
    } catch (error) {
      return Promise.reject(error);
    }
    const promise = new Promise<unknown>((resolve) => {
      task.resolve = resolve;
    });
    try {
      this.#enqueue(task);
    } catch (error) {
      task.rejectWith(error); // a throw (say, from a custom clock) rejects the caller, never throws at it
    }
    return promise;
  }

  /** A permit at once when the store grants one synchronously; see `Scheduler.tryAcquire`. */
  tryAcquire(options: TaskOptions): Permit | undefined {
    const tryGrant = this.#store.tryGrant;
    const task = this.#intake.create(this.#options, this.#closed, null, options, noop, false);
    let granted = false;
    try {
      granted = tryGrant !== undefined && tryGrant.call(this.#store, task) === true;
    } catch (error) {
      this.#reporter.error(error); // a store that throws answers "not now"
    }
    if (!granted) return undefined;
    task.resolve = null; // nobody waits for a promise: the caller has the permit at once
    this.#admitted(task);
    return this.#begin(task, task.enqueuedAt) as Permit; // granted when asked: no wait
  }

  /** See `Scheduler.rearm`. */
  rearm(): void {
    this.#deadlines.rearm();
  }

  onIdle(): Promise<void> {
    if (this.#live === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops admitting; rejects (or, draining, keeps) the queue; after `timeoutMs` stops everything. */
  close(drain: boolean, timeoutMs: number): Promise<void> {
    this.#closed = true;
    this.#draining = drain;
    const cancel = setLongTimer(
      this.#options.clock,
      () => {
        this.#draining = false; // from now on a late queue answer is refused too
        this.#endings.forceClose();
      },
      timeoutMs,
    );
    const queuedGone = drain ? undefined : this.#endings.rejectQueued();
    return Promise.resolve(queuedGone)
      .then(() => this.onIdle())
      .then(async () => {
        cancel();
        this.#deadlines.dispose();
        try {
          await this.#store.detach();
        } catch (error) {
          this.#reporter.error(error); // the scheduler is closed all the same
        }
      });
  }

  /** The task is on the books from here until it retires. */
  #admitted(task: Task): void {
    if (task.signal !== null) this.#signals.add(task.signal, task); // may throw: count the task after
    this.#live++;
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
      // A synchronous grant comes in the moment the task arrived: its arrival time is its start time.
      if (result === "granted") this.#granted(task, task.enqueuedAt);
      else this.#enqueued(task, result);
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
    } else if (result !== "queued") {
      this.#endings.refused(task, result);
      this.#retire(task);
    } else {
      if (task.phase === PENDING) this.#queue(task);
      if (task.phase !== QUEUED) return;
      // Without preemption configured (the default) an arrival has nothing to preempt: no call.
      if (!task.settled && !this.#closed && this.#options.preemption !== null) this.#preemption.arrived(task);
      if (task.phase !== QUEUED) return;
      if (task.settled) {
        this.#endings.dequeue(task); // settled while the store was still answering: take the ticket back out
      } else if (this.#closed && !this.#draining) {
        // close() took the queue out before this answer came: this ticket was not in it.
        this.#endings.reject(
          task,
          new SchedulerError(ErrorCode.CLOSED, "The scheduler closed before the task started", {
            id: task.id,
            priority: task.priority,
          }),
        );
        this.#endings.dequeue(task);
      }
    }
  }

  #queue(task: Task): void {
    if (task.phase !== PENDING) return;
    task.phase = QUEUED;
    this.#deadlines.queue(task, task.enqueuedAt + task.book.queueTimeoutMs);
    this.#reporter.queued(task);
  }

  /**
   * The store granted a slot (at clock time `now`, when it read the clock for the grant). Start the task,
   * or give the slot straight back if nobody waits for it.
   */
  #granted(task: Task, now?: number): void {
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
    const context = this.#begin(task, now);
    const fn = task.fn;
    if (fn === null) {
      task.resolveWith(context);
      return;
    }
    callTaskFunction(fn, context, task, this.#preemption.generation(task), this.#ran);
  }

  /** Run number `run` of the task's function settled: finish the task, unless that run was preempted. */
  readonly #ran = (task: Task, run: number, ok: boolean, value: unknown): void => {
    if (this.#preemption.generation(task) !== run) return; // a preempted run that outlived its grace
    this.#finish(task, ok, value);
  };

  /**
   * Bookkeeping of a start: the run's context (a permit for a permit request), the run deadline,
   * counters, the `started` event.
   */
  #begin(task: Task, now = this.#options.clock.now()): RunContext {
    task.phase = RUNNING;
    const waitMs = now - task.enqueuedAt;
    const control = this.#permitControl;
    const context =
      task.fn === null ? new Permit(task, waitMs, control) : new RunContext(task, waitMs, control.usage);
    task.run = context;
    this.#running.add(task);
    const { timeoutMs } = task;
    if (timeoutMs !== Number.POSITIVE_INFINITY) this.#deadlines.set(task, now + timeoutMs);
    this.#reporter.started(task, now, waitMs);
    return context;
  }

  /**
   * The task's function settled (or the permit was released): answer the caller with the outcome, then
   * free the slot. A preemption victim's outcome answers nobody: its caller waits for the next run.
   */
  #finish(task: Task, ok: boolean, value: unknown): void {
    if (task.phase !== RUNNING) return;
    if (!this.#preemption.isWinding(task)) this.#answer(task, ok, value);
    this.#release(task);
  }

  #answer(task: Task, ok: boolean, value: unknown): void {
    const aborted = task.aborted;
    if (ok && !aborted) this.#reporter.completed(task, value);
    else if (!aborted) this.#reporter.failed(task, value);
    if (ok) task.resolveWith(value);
    else task.rejectWith(value);
  }

  /**
   * Frees a running task's slot, exactly once. The one path every route takes: the function settled,
   * the permit was released, the abort's grace ran out, or a grant came for a caller already answered.
   * A preemption victim's slot goes to the task that preempted it (see `Preemption.letGo`); any other
   * task retires and its slot goes back to the store.
   */
  #release(task: Task): void {
    if (task.phase !== RUNNING) return;
    this.#running.delete(task);
    if (this.#preemption.letGo(task)) return;
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
    this.#preemption.forget(task);
    if (task.signal !== null) this.#signals.remove(task.signal, task);
    if (task.run === null) task.fn = null; // a task that never started keeps no function
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

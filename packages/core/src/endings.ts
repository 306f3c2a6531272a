import type { Deadlines } from "./deadlines.js";
import { ErrorCode, isSchedulerError, SchedulerError } from "./errors.js";
import type { ResolvedOptions } from "./options.js";
import type { RecentIds } from "./recent-ids.js";
import type { Reporter } from "./reporter.js";
import type { RunningTasks } from "./running-tasks.js";
import { type EnqueueResult, isPromise, type MaybePromise, type Store, type Ticket } from "./store.js";
import { PENDING, QUEUED, RUNNING, type Task } from "./task.js";
import type { TenantCredits } from "./tenant-credits.js";

/** What {@link Endings} shares with the engine that owns it. */
export interface Books {
  readonly options: ResolvedOptions;
  readonly store: Store;
  readonly reporter: Reporter;
  readonly recent: RecentIds;
  readonly credits: TenantCredits;
  readonly deadlines: Deadlines<Task>;
  /** Tasks holding a slot. */
  readonly running: RunningTasks;
  /** Frees a running task's slot, exactly once. */
  release(task: Task): void;
  /** Takes a task off the books: no deadline, no listener, no references. */
  retire(task: Task): void;
}

/**
 * Every way a task ends other than by finishing: queue and run timeouts, the end of an abort's grace,
 * the caller's abort, a full queue, the store dropping or revoking it, and `close()`. Each answers the
 * caller once and leaves the slot to be freed exactly once (see `Engine`).
 */
export class Endings {
  readonly #books: Books;

  constructor(books: Books) {
    this.#books = books;
  }

  /** One deadline fired: queue timeout, run timeout, or the end of an abort's grace. */
  expired(task: Task): void {
    if (task.phase === QUEUED || task.phase === PENDING) {
      if (task.settled) return;
      this.reject(task, ErrorCode.QUEUE_TIMEOUT, `Waited longer than the ${task.priority} queue timeout`);
      this.dequeue(task);
    } else if (task.phase === RUNNING) {
      if (task.aborted) {
        this.#books.reporter.overrun(task);
        this.#books.release(task);
      } else {
        this.#remember(task, this.#books.options.clock.now());
        this.abortRunning(
          task,
          new SchedulerError(ErrorCode.RUN_TIMEOUT, `Ran longer than ${task.timeoutMs} ms`, about(task)),
        );
      }
    }
  }

  callerAborted(task: Task): void {
    const error = new SchedulerError(ErrorCode.ABORTED, "The task's signal was aborted", {
      ...about(task),
      cause: task.signal?.reason,
    });
    if (task.phase === QUEUED || task.phase === PENDING) {
      if (task.settled) return;
      this.reject(task, error);
      this.dequeue(task);
    } else if (task.phase === RUNNING) {
      this.abortRunning(task, error);
    }
  }

  /** Stops a running task: the caller hears at once, the slot stays taken until it settles or the grace ends. */
  abortRunning(task: Task, error: SchedulerError): void {
    if (task.aborted) {
      // Already stopped: only a preempted task winding down can still have a caller waiting (it would
      // have run again); a caller's abort or close() answers it now.
      const resolve = task.fn === null ? null : task.answer();
      if (resolve !== null) {
        this.#books.reporter.failed(task, error);
        resolve(Promise.reject(error));
      }
      return;
    }
    const resolve = task.answer();
    if (resolve !== null) {
      this.#books.reporter.failed(task, error);
      resolve(Promise.reject(error));
    } else if (task.fn === null) {
      this.#books.reporter.failed(task, error); // a permit: its holder already has it, the work failed all the same
    }
    task.abort(error);
    if (task.phase === RUNNING)
      this.#books.deadlines.set(task, this.#books.options.clock.now() + this.#books.options.abortGraceMs);
  }

  /** Takes a settled task's ticket out of the store's queue; if it was granted meanwhile, the grant frees it. */
  dequeue(task: Task): void {
    this.#books.deadlines.clear(task);
    let removed: MaybePromise<boolean>;
    try {
      removed = this.#books.store.remove(task);
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
    if (gone && task.phase !== RUNNING) this.#books.retire(task);
  }

  /**
   * The store could not say whether the ticket left: keep no record that would hold close() open; a
   * grant that still arrives for it is handed straight back (see #granted).
   */
  #dequeueFailed(task: Task, error: unknown): void {
    this.#books.reporter.error(error);
    this.#dequeued(task, true);
  }

  /** Answers a caller whose task never started. */
  reject(task: Task, codeOrError: ErrorCode | SchedulerError, message = ""): void {
    const resolve = task.answer();
    if (resolve === null) return;
    const now = this.#books.options.clock.now();
    const error =
      typeof codeOrError === "string"
        ? new SchedulerError(codeOrError, message, {
            ...about(task),
            retryAfterMs: this.#retryEstimate(task, codeOrError),
          })
        : codeOrError;
    // The same rejection remembers the same way whether the scheduler or the store made it.
    if (error.code === ErrorCode.QUEUE_FULL || error.code === ErrorCode.QUEUE_TIMEOUT)
      this.#remember(task, now);
    this.#books.reporter.rejected(task, error, now);
    resolve(Promise.reject(error));
  }

  /** The store refused the ticket at admission: a full queue, the tenant's queue bound or its bucket. */
  refused(task: Task, result: Exclude<EnqueueResult, "granted" | "queued">): void {
    if (result === "full") {
      this.reject(task, ErrorCode.QUEUE_FULL, `The ${task.priority} queue is full`);
    } else if (result === "tenant-full") {
      this.reject(task, ErrorCode.TENANT_QUEUE_FULL, "The tenant's queue is full");
    } else {
      const retryAfterMs = Math.max(1, Math.ceil(result.retryAfterMs));
      const message = "The tenant's token rate limit is reached";
      this.reject(
        task,
        new SchedulerError(ErrorCode.RATE_LIMITED, message, { ...about(task), retryAfterMs }),
      );
    }
  }

  storeFailed(task: Task, cause: unknown): void {
    this.reject(task, this.#storeError(task, cause, "The scheduler's store is unavailable"));
    if (task.phase !== RUNNING) this.#books.retire(task);
  }

  /** The store dropped a waiting ticket: answer its caller. */
  storeDropped(task: Task, cause: unknown): void {
    if (task.phase !== QUEUED && task.phase !== PENDING) return;
    this.reject(task, this.#storeError(task, cause, "The scheduler's store dropped the task"));
    this.#books.retire(task);
  }

  /** The store took a granted slot back: stop the task; its slot is no longer ours to release. */
  storeRevoked(task: Task, cause: unknown): void {
    if (task.phase !== RUNNING) return;
    this.abortRunning(task, this.#storeError(task, cause, "The scheduler's store revoked the task's slot"));
    this.#books.running.delete(task);
    this.#books.retire(task);
  }

  /** The store's own SchedulerError, or STORE_UNAVAILABLE with the store's reason as cause. */
  #storeError(task: Task, cause: unknown, message: string): SchedulerError {
    if (!isSchedulerError(cause)) {
      return new SchedulerError(ErrorCode.STORE_UNAVAILABLE, message, {
        ...about(task),
        cause,
        retryAfterMs: 1_000,
      });
    }
    if (cause.id !== undefined && cause.retryAfterMs !== undefined) return cause;
    // The store knows the code; the scheduler adds the task's id and, if missing, its own retry estimate.
    const retryAfterMs = cause.retryAfterMs ?? this.#retryEstimate(task, cause.code);
    return new SchedulerError(cause.code, cause.message, {
      ...about(task),
      cause: cause.cause,
      retryAfterMs,
    });
  }

  /**
   * The retry estimate from the priority's start rate: the store's over every instance when it measures
   * one (`Store.drainRate`), otherwise this instance's (see `retryAfterMs`).
   */
  #retryEstimate(task: Task, code: ErrorCode): number | undefined {
    const { store, options, reporter } = this.#books;
    const priority = options.priorityByName.get(task.priority);
    let shared: number | undefined;
    try {
      shared = store.drainRate?.(task.priority);
    } catch (error) {
      reporter.error(error);
    }
    let depth = 0;
    try {
      depth = store.depth(task.priority);
    } catch (error) {
      reporter.error(error);
    }
    return reporter.retryAfter(priority, depth, code, shared);
  }

  /** A refusal or run timeout: the id's retry and one claimed retry of its tenant may go to the front. */
  #remember(task: Task, now: number): void {
    if (task.givenId !== undefined) this.#books.recent.remember(task.givenId, now);
    this.#books.credits.add(task.tenant, now);
  }

  rejectQueued(): Promise<void> | undefined {
    const reject = (tickets: Ticket[]): void => {
      for (const ticket of tickets) {
        const task = ticket as Task;
        this.reject(
          task,
          new SchedulerError(ErrorCode.CLOSED, "The scheduler closed before the task started", about(task)),
        );
        if (task.phase !== RUNNING) this.#books.retire(task);
      }
    };
    let all: MaybePromise<Ticket[]>;
    try {
      all = this.#books.store.removeAll();
    } catch (error) {
      // The queued tasks stay until their queue timeouts (or the close timeout's second try).
      this.#books.reporter.error(error);
      return undefined;
    }
    if (!isPromise(all)) return void reject(all);
    return all.then(reject, (error: unknown) => this.#books.reporter.error(error));
  }

  forceClose(): void {
    void this.rejectQueued();
    for (const task of [...this.#books.running]) {
      this.abortRunning(
        task,
        new SchedulerError(ErrorCode.CLOSED, "The scheduler closed while the task ran", about(task)),
      );
    }
  }
}

function about(task: Task): { id: string; priority: string } {
  return { id: task.id, priority: task.priority };
}

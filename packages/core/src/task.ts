import type { Deadlined } from "./deadlines.js";
import type { Linked, QueueLinks } from "./memory/links.js";
import type { PriorityBook } from "./priority-book.js";
import { isPromise, type Ticket } from "./store.js";
import { checkedUsage, type TokenUsage } from "./usage.js";

/** How a task's context hands reported usage to its scheduler (one function per scheduler). */
export type UsageSink = (task: Task, usage: TokenUsage) => void;

/** What a task's function receives. */
export interface TaskContext {
  /** Fires on run timeout, on the caller's abort, and on `close()`; pass it to the upstream call. */
  readonly signal: AbortSignal;
  readonly id: string;
  readonly priority: string;
  readonly tenant: string;
  /** How long the task waited for its slot. */
  readonly waitMs: number;
  /**
   * Tells the scheduler how many tokens the task really used (from the upstream's `usage`): corrects the
   * tenant's token bucket and fairness counter by the difference from the `tokens` estimate. The first
   * report counts; later ones are ignored. Throws `INVALID_OPTION` for a malformed usage.
   */
  readonly reportUsage: (usage: TokenUsage) => void;
}

/** A unit of work: receives a context with an `AbortSignal`, returns a value or a promise. */
export type TaskFunction<T> = (context: TaskContext) => T | PromiseLike<T>;

export const PENDING = 0;
export const QUEUED = 1;
export const RUNNING = 2;
export const DONE = 3;
/** Where a task is: admitted and waiting for the store's answer, waiting, holding a slot, or finished. */
export type Phase = typeof PENDING | typeof QUEUED | typeof RUNNING | typeof DONE;

/**
 * Per-call settings that many calls leave at their defaults (an id, a signal, a run timeout, a cost, a
 * token estimate, a place at the front as a retry): kept off the task record, in one object made only
 * when the call has one of them (see `admitExtras`), so that a plain `run(fn, { priority, tenant })`
 * costs no field for them.
 */
export class CallExtras {
  readonly id: string | undefined;
  readonly signal: AbortSignal | null;
  /** Run timeout in ms; `Infinity` for none. */
  readonly timeoutMs: number;
  readonly cost: number;
  readonly tokens: number;
  /** Goes to the front: a trusted retry, or (set by the intake) a claimed one that was backed. */
  retry: boolean;
  /** The client claims a retry; the intake decides whether it counts (see `TaskOptions.claimedRetry`). */
  readonly claimedRetry: boolean;
  /** The scheduler's handler for a caller's abort (one function per scheduler, shared by its tasks). */
  readonly onAbort: (task: Task) => void;

  constructor(
    id: string | undefined,
    signal: AbortSignal | null,
    timeoutMs: number,
    cost: number,
    tokens: number,
    retry: boolean,
    claimedRetry: boolean,
    onAbort: (task: Task) => void,
  ) {
    this.id = id;
    this.signal = signal;
    this.timeoutMs = timeoutMs;
    this.cost = cost;
    this.tokens = tokens;
    this.retry = retry;
    this.claimedRetry = claimedRetry;
    this.onAbort = onAbort;
  }
}

/**
 * One submitted task or permit request: the store's ticket, the deadline queue's item and the caller's
 * promise in one record, so that a queued task costs one object plus its promise (`pnpm bench memory`;
 * docs/decisions/0032-plain-task-fields.md). `phase` says what the store holds for it; `settled` whether
 * the caller's promise is settled. They move independently: a caller can be answered (timeout, abort)
 * while the store still holds a slot that is freed later. The caller's promise is rejected by resolving
 * it with a rejected promise, so only one resolving function is kept per task.
 *
 * The record holds what every waiting task needs, one meaning per field; settings few calls give live
 * in {@link CallExtras}, and what only a started task needs (its start, its abort controller) lives in
 * its {@link RunContext}, made at the start. Fields are `declare`d and assigned in the constructor, all
 * of them in one order: V8 sizes a class's objects by the `this.x = ...` assignments it sees there, so
 * every field sits in the object itself.
 */
export class Task implements Ticket, QueueLinks, Deadlined, EventListenerObject {
  /** Unique among this scheduler's tasks, in the order they were made. */
  declare readonly seq: number;
  /** Its priority's book (counters, running cost, queue deadlines); its name is {@link priority}. */
  declare readonly book: PriorityBook;
  declare readonly tenant: string;
  declare readonly enqueuedAt: number;
  /** The call's id, signal, run timeout, cost, token estimate and retry; null when all are defaults. */
  declare readonly extras: CallExtras | null;
  /** The task's function: null for a permit request, and for a task retired before it started. */
  declare fn: TaskFunction<unknown> | null;
  /** The context of its current run (a {@link Permit} for a permit), from its start on; null before. */
  declare run: RunContext | null;
  /** Resolves the caller's promise; null once the caller is answered (see {@link settled}). */
  declare resolve: ((value: unknown) => void) | null;
  declare phase: Phase;
  // The memory store's links (declared here so every task has one shape) and the deadlines' fields.
  declare prev: Linked | null;
  declare next: Linked | null;
  declare queuedIn: object | null;
  declare due: number;
  declare heapIndex: number;

  constructor(
    seq: number,
    enqueuedAt: number,
    book: PriorityBook,
    tenant: string,
    extras: CallExtras | null,
    fn: TaskFunction<unknown> | null,
    resolve: (value: unknown) => void,
  ) {
    this.seq = seq;
    this.book = book;
    this.tenant = tenant;
    this.enqueuedAt = enqueuedAt;
    this.extras = extras;
    this.fn = fn;
    this.run = null;
    this.resolve = resolve;
    this.phase = PENDING;
    this.prev = null;
    this.next = null;
    this.queuedIn = null;
    this.due = -1;
    this.heapIndex = -1;
  }

  get priority(): string {
    return this.book.name;
  }

  get id(): string {
    return this.extras?.id ?? String(this.seq);
  }

  /** The id the caller gave, if any. */
  get givenId(): string | undefined {
    return this.extras?.id;
  }

  /** The caller's signal, if any. */
  get signal(): AbortSignal | null {
    return this.extras?.signal ?? null;
  }

  /** Goes to the front of its tenant's queue (a trusted retry, or a claimed one that was backed). */
  get retry(): boolean {
    return this.extras?.retry ?? false;
  }

  /** Units of `maxConcurrency` it takes. */
  get cost(): number {
    return this.extras?.cost ?? 1;
  }

  /** Estimated tokens; 0 when not given. */
  get tokens(): number {
    return this.extras?.tokens ?? 0;
  }

  /** Run timeout in ms; `Infinity` when none. */
  get timeoutMs(): number {
    return this.extras?.timeoutMs ?? Number.POSITIVE_INFINITY;
  }

  /** Clock time of the start, exact (`enqueuedAt` plus the run's `waitMs`); 0 before the start. */
  get startedAt(): number {
    const run = this.run;
    return run === null ? 0 : this.enqueuedAt + run.waitMs;
  }

  /**
   * True once the task's own signal was aborted (run timeout, caller abort, close); also true when the
   * signal can no longer be read because the request that made it has ended (Cloudflare's workerd
   * forbids touching one request's signals from another).
   */
  get aborted(): boolean {
    return this.run?.signalAborted ?? false;
  }

  /** Aborts the task's own signal with `reason` (a task that never started has none to abort). */
  abort(reason: unknown): void {
    this.run?.abortSignal(reason);
  }

  /** True once the caller's promise is answered (or nobody waits for one: a `tryAcquire` permit). */
  get settled(): boolean {
    return this.resolve === null;
  }

  /**
   * Marks the caller answered and hands over the function that answers it, or null when it was
   * answered already: take it before anything that could call back in (events, a custom clock).
   */
  answer(): ((value: unknown) => void) | null {
    const resolve = this.resolve;
    this.resolve = null;
    return resolve;
  }

  /** Fulfils the caller's promise with `value`, unless the caller was answered already. */
  resolveWith(value: unknown): void {
    this.answer()?.(value);
  }

  /** Rejects the caller's promise (by resolving it with a rejected one), unless it was answered already. */
  rejectWith(error: unknown): void {
    const resolve = this.answer();
    if (resolve !== null) resolve(Promise.reject(error));
  }

  /** Called when the caller's signal fires: the record itself is the listener, no closure per task. */
  handleEvent(): void {
    this.extras?.onAbort(this);
  }
}

/**
 * The context object a task's function receives (and the base of a permit), made when the task starts:
 * id, priority, tenant, wait, and the signal that fires on run timeout, the caller's abort and
 * `close()`, whose controller is made only when the signal is read or the run is aborted.
 */
export class RunContext implements TaskContext {
  readonly #task: Task;
  readonly #usage: UsageSink;
  #reported = false;
  #controller: AbortController | null = null;
  readonly waitMs: number;
  // The tasks before and after this run's in its scheduler's list of running tasks (`RunningTasks`): on
  // the run, not the task record, so that a queued task carries no such field. Private, read through
  // accessors, so that a context or permit that is logged or serialized shows no other task.
  #runPrev: Task | null = null;
  #runNext: Task | null = null;

  constructor(task: Task, waitMs: number, usage: UsageSink) {
    this.#task = task;
    this.#usage = usage;
    this.waitMs = waitMs;
  }

  /** @internal The task started before this run's, in its scheduler's list of running tasks. */
  get runPrev(): Task | null {
    return this.#runPrev;
  }

  set runPrev(task: Task | null) {
    this.#runPrev = task;
  }

  /** @internal The task started after this run's, in its scheduler's list of running tasks. */
  get runNext(): Task | null {
    return this.#runNext;
  }

  set runNext(task: Task | null) {
    this.#runNext = task;
  }

  /** Bound to this context, so it may be destructured (`({ signal, reportUsage }) => ...`). */
  get reportUsage(): (usage: TokenUsage) => void {
    return (usage) => this.#report(usage);
  }

  #report(usage: TokenUsage): void {
    const checked = checkedUsage(usage);
    if (this.#reported) return;
    this.#reported = true;
    this.#usage(this.#task, checked);
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    return this.#controller.signal;
  }

  /** @internal See {@link Task.aborted}. */
  get signalAborted(): boolean {
    const controller = this.#controller;
    if (controller === null) return false;
    try {
      return controller.signal.aborted;
    } catch {
      return true;
    }
  }

  /** @internal Aborts the run's signal with `reason`; see {@link Task.abort}. */
  abortSignal(reason: unknown): void {
    this.#controller ??= new AbortController();
    this.#controller.abort(reason);
  }

  get id(): string {
    return this.#task.id;
  }

  get priority(): string {
    return this.#task.priority;
  }

  get tenant(): string {
    return this.#task.tenant;
  }
}

/**
 * Calls a task's function with its run's context and hands the outcome to `settled` once, whether the
 * function returns, throws, or returns a promise (or any thenable) that settles later. `run` is passed
 * through, so one shared `settled` serves every task.
 */
export function callTaskFunction(
  fn: TaskFunction<unknown>,
  context: RunContext,
  task: Task,
  run: number,
  settled: (task: Task, run: number, ok: boolean, value: unknown) => void,
): void {
  let result: unknown;
  try {
    result = fn(context);
    if (isPromise(result)) {
      // Promise.resolve adopts a foreign thenable safely: a `then` that throws becomes a rejection.
      Promise.resolve(result).then(
        (value) => settled(task, run, true, value),
        (error: unknown) => settled(task, run, false, error),
      );
      return;
    }
  } catch (error) {
    // the function threw, or reading its result's `then` did
    settled(task, run, false, error);
    return;
  }
  settled(task, run, true, result);
}

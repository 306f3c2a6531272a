import type { Deadlined } from "./deadlines.js";
import type { Linked, QueueLinks } from "./memory/links.js";
import type { Ticket } from "./store.js";
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

/** The fields a task starts with. */
export interface TaskInit {
  readonly priority: string;
  readonly tenant: string;
  readonly cost: number;
  readonly tokens: number;
  readonly retry: boolean;
  readonly enqueuedAt: number;
  readonly timeoutMs: number;
  readonly id: string | undefined;
  readonly signal: AbortSignal | null;
  readonly fn: TaskFunction<unknown> | null;
  readonly resolve: (value: unknown) => void;
  /** The scheduler's handler for a caller's abort (one function per scheduler, shared by its tasks). */
  readonly onAbort: (task: Task) => void;
}

/**
 * One submitted task or permit request: the store's ticket, the deadline heap's item and the caller's
 * promise in one record, so that a queued task costs one object plus its promise (measured by the
 * memory benchmark). `phase` says what the store holds for it; `settled` whether the caller's promise is
 * settled. They move independently: a caller can be answered (timeout, abort) while the store still
 * holds a slot that is freed later. The caller's promise is rejected by resolving it with a rejected
 * promise, so only one resolving function is kept per task. The abort controller is made only when the
 * function reads its signal or the task is aborted.
 *
 * Fields are `declare`d and assigned in the constructor, all of them in one order: class-field
 * initializers (define semantics) made construction the hottest spot of the throughput benchmark. They
 * are assigned as `this.x = ...`, which V8 counts to size the record: every field then sits in the
 * object itself (assigned through an alias, they spilled into a second array: 32 B more per task).
 */
export class Task implements Ticket, QueueLinks, Deadlined, EventListenerObject {
  declare readonly seq: number;
  declare readonly priority: string;
  declare readonly tenant: string;
  declare readonly enqueuedAt: number;
  /** Run timeout in ms; 0 when none (kept a small integer so the record stays compact). */
  declare readonly timeoutMs: number;
  declare readonly givenId: string | undefined;
  declare readonly signal: AbortSignal | null;
  declare fn: TaskFunction<unknown> | null;
  declare resolve: ((value: unknown) => void) | null;
  declare readonly onAbort: (task: Task) => void;
  declare readonly cost: number;
  declare readonly tokens: number;
  declare readonly retry: boolean;
  declare phase: Phase;
  declare settled: boolean;
  /** Clock time of the start, exact (events derive `waitMs` and `runMs` from it). */
  declare startedAt: number;
  declare controller: AbortController | null;
  // The memory store's links (declared here so every task has one shape) and the deadline heap's fields.
  declare prev: Linked | null;
  declare next: Linked | null;
  declare olderPrev: Linked | null;
  declare olderNext: Linked | null;
  declare queuedIn: object | null;
  declare heapIndex: number;
  declare deadline: number;

  constructor(seq: number, init: TaskInit) {
    this.seq = seq;
    this.priority = init.priority;
    this.tenant = init.tenant;
    this.enqueuedAt = init.enqueuedAt;
    this.timeoutMs = init.timeoutMs === Number.POSITIVE_INFINITY ? 0 : init.timeoutMs;
    this.givenId = init.id;
    this.signal = init.signal;
    this.fn = init.fn;
    this.resolve = init.resolve;
    this.onAbort = init.onAbort;
    this.cost = init.cost;
    this.tokens = init.tokens;
    this.retry = init.retry;
    this.phase = PENDING;
    this.settled = false;
    this.startedAt = 0;
    this.controller = null;
    this.prev = null;
    this.next = null;
    this.olderPrev = null;
    this.olderNext = null;
    this.queuedIn = null;
    this.heapIndex = -1;
    this.deadline = -1;
  }

  get id(): string {
    return this.givenId ?? String(this.seq);
  }

  /** The signal the task's function (or permit holder) sees; made on first use. */
  get runSignal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  /**
   * True once the task's own signal was aborted (run timeout, caller abort, close); also true when the
   * signal can no longer be read because the request that made it has ended (Cloudflare's workerd
   * forbids touching one request's signals from another).
   */
  get aborted(): boolean {
    const controller = this.controller;
    if (controller === null) return false;
    try {
      return controller.signal.aborted;
    } catch {
      return true;
    }
  }

  /** Aborts the task's own signal with `reason`. */
  abort(reason: unknown): void {
    this.controller ??= new AbortController();
    this.controller.abort(reason);
  }

  /** Rejects the caller's promise (by resolving it with a rejected one). */
  rejectWith(error: unknown): void {
    const resolve = this.resolve;
    if (resolve === null) return;
    const rejected = Promise.reject(error);
    resolve(rejected);
  }

  /** Called when the caller's signal fires: the record itself is the listener, no closure per task. */
  handleEvent(): void {
    this.onAbort(this);
  }
}

/**
 * The context object a task's function receives (and the base of a permit): id, priority, tenant, wait,
 * and the signal that fires on run timeout, the caller's abort and `close()`, made only when read.
 */
export class RunContext implements TaskContext {
  readonly #task: Task;
  readonly #usage: UsageSink;
  #reported = false;
  readonly waitMs: number;

  constructor(task: Task, waitMs: number, usage: UsageSink) {
    this.#task = task;
    this.#usage = usage;
    this.waitMs = waitMs;
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
    return this.#task.runSignal;
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

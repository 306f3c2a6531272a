import type { Deadlined } from "./deadlines.js";
import type { Ticket } from "./store.js";

/** What a task's function receives. */
export interface TaskContext {
  /** Fires on run timeout, on the caller's abort, and on `close()`; pass it to the upstream call. */
  readonly signal: AbortSignal;
  readonly id: string;
  readonly priority: string;
  readonly tenant: string;
  /** How long the task waited for its slot. */
  readonly waitMs: number;
}

/** A unit of work: receives a context with an `AbortSignal`, returns a value or a promise. */
export type TaskFunction<T> = (context: TaskContext) => T | PromiseLike<T>;

export const PENDING = 0;
export const QUEUED = 1;
export const RUNNING = 2;
export const DONE = 3;
/** Where a task is: admitted and waiting for the store's answer, waiting, holding a slot, or finished. */
export type Phase = typeof PENDING | typeof QUEUED | typeof RUNNING | typeof DONE;

const PHASE_BITS = 3;
const SETTLED = 4;
const RETRY = 8;
const COST_SHIFT = 4;

/** The fields a task starts with. */
export interface TaskInit {
  readonly priority: string;
  readonly tenant: string;
  readonly cost: number;
  readonly retry: boolean;
  readonly enqueuedAt: number;
  readonly timeoutMs: number;
  readonly id: string | undefined;
  readonly signal: AbortSignal | null;
  readonly fn: TaskFunction<unknown> | null;
  readonly resolve: (value: unknown) => void;
}

/**
 * One submitted task or permit request: the store's ticket, the deadline heap's item and the caller's
 * promise in one record, so that a queued task costs one object plus its promise (measured by the
 * memory benchmark). `phase` says what the store holds for it; `settled` whether the caller's promise is
 * settled. They move independently: a caller can be answered (timeout, abort) while the store still
 * holds a slot that is freed later. The caller's promise is rejected by resolving it with a rejected
 * promise, so only one resolving function is kept per task. The abort controller is made only when the
 * function reads its signal or the task is aborted.
 */
export abstract class Task implements Ticket, Deadlined, EventListenerObject {
  readonly seq: number;
  readonly priority: string;
  readonly tenant: string;
  readonly enqueuedAt: number;
  /** Run timeout in ms; 0 when none (kept a small integer so the record stays compact). */
  readonly timeoutMs: number;
  readonly givenId: string | undefined;
  readonly signal: AbortSignal | null;
  fn: TaskFunction<unknown> | null;
  resolve: ((value: unknown) => void) | null;
  #flags: number;
  /** Whole ms from the scheduler's origin to the start (a small integer, not a boxed double). */
  startedAt = 0;
  controller: AbortController | null = null;
  // Store-owned links (see Ticket) and the deadline heap's fields.
  prev: Ticket | null = null;
  next: Ticket | null = null;
  olderPrev: Ticket | null = null;
  olderNext: Ticket | null = null;
  heapIndex = -1;
  deadline = -1;

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
    this.#flags = PENDING | (init.retry ? RETRY : 0) | (init.cost << COST_SHIFT);
  }

  get id(): string {
    return this.givenId ?? String(this.seq);
  }

  get cost(): number {
    return this.#flags >>> COST_SHIFT;
  }

  get retry(): boolean {
    return (this.#flags & RETRY) !== 0;
  }

  get phase(): Phase {
    return (this.#flags & PHASE_BITS) as Phase;
  }

  set phase(phase: Phase) {
    this.#flags = (this.#flags & ~PHASE_BITS) | phase;
  }

  get settled(): boolean {
    return (this.#flags & SETTLED) !== 0;
  }

  set settled(settled: boolean) {
    this.#flags = settled ? this.#flags | SETTLED : this.#flags & ~SETTLED;
  }

  /** The signal the task's function (or permit holder) sees; made on first use. */
  get runSignal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  /** True once the task's own signal was aborted (run timeout, caller abort, close). */
  get aborted(): boolean {
    return this.controller?.signal.aborted === true;
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

  /** Called when the caller's signal fires; each scheduler supplies its own handler in a subclass. */
  abstract handleEvent(): void;
}

/**
 * The context object a task's function receives (and the base of a permit): id, priority, tenant, wait,
 * and the signal that fires on run timeout, the caller's abort and `close()`, made only when read.
 */
export class RunContext implements TaskContext {
  readonly #task: Task;
  readonly waitMs: number;

  constructor(task: Task, waitMs: number) {
    this.#task = task;
    this.waitMs = waitMs;
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

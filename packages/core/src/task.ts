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

/**
 * One submitted task or permit request: the store's ticket, the deadline heap's item and the caller's
 * promise in one record, so that a queued task costs one object plus its promise. `phase` says what the
 * store holds for it; `settled` whether the caller's promise is settled. They move independently: a
 * caller can be answered (timeout, abort) while the store still holds a slot that is freed later.
 */
export class Task implements Ticket, Deadlined, EventListenerObject {
  readonly seq: number;
  readonly priority: string;
  readonly tenant: string;
  readonly cost: number;
  readonly retry: boolean;
  readonly enqueuedAt: number;
  readonly timeoutMs: number;
  readonly givenId: string | undefined;
  readonly signal: AbortSignal | null;
  fn: TaskFunction<unknown> | null;
  resolve: ((value: unknown) => void) | null;
  reject: ((reason: unknown) => void) | null;
  readonly onAbort: (task: Task) => void;
  phase: Phase = PENDING;
  settled = false;
  startedAt = 0;
  controller: AbortController | null = null;
  // Store-owned links (see Ticket) and the deadline heap's fields.
  prev: Ticket | null = null;
  next: Ticket | null = null;
  olderPrev: Ticket | null = null;
  olderNext: Ticket | null = null;
  storeRef: unknown = null;
  heapIndex = -1;
  deadline = Number.POSITIVE_INFINITY;

  constructor(
    seq: number,
    init: {
      priority: string;
      tenant: string;
      cost: number;
      retry: boolean;
      enqueuedAt: number;
      timeoutMs: number;
      id: string | undefined;
      signal: AbortSignal | null;
      fn: TaskFunction<unknown> | null;
      resolve: (value: unknown) => void;
      reject: (reason: unknown) => void;
      onAbort: (task: Task) => void;
    },
  ) {
    this.seq = seq;
    this.priority = init.priority;
    this.tenant = init.tenant;
    this.cost = init.cost;
    this.retry = init.retry;
    this.enqueuedAt = init.enqueuedAt;
    this.timeoutMs = init.timeoutMs;
    this.givenId = init.id;
    this.signal = init.signal;
    this.fn = init.fn;
    this.resolve = init.resolve;
    this.reject = init.reject;
    this.onAbort = init.onAbort;
  }

  get id(): string {
    return this.givenId ?? String(this.seq);
  }

  /** The caller's signal fired: the record itself is the listener, so no closure per task. */
  handleEvent(): void {
    this.onAbort(this);
  }
}

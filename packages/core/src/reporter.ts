import type { RunObserver } from "./adaptive/observer.js";
import { retryAfterMs } from "./admission.js";
import type { Clock } from "./clock.js";
import { Emitter } from "./emitter.js";
import { type ErrorCode, SchedulerError } from "./errors.js";
import type { SchedulerEvents, TaskEventBase } from "./events.js";
import { PriorityBook } from "./priority-book.js";
import { buildMetrics, type MetricsSnapshot } from "./stats.js";
import type { ResolvedPriority, StoreSnapshot } from "./store.js";
import type { Task } from "./task.js";

/**
 * What the scheduler tells the world: the typed events and the counters behind `metrics()`. It builds
 * an event's payload only when someone listens, and never sees request contents.
 */
export class Reporter {
  readonly events: Emitter<SchedulerEvents>;
  readonly #books = new Map<string, PriorityBook>();
  readonly #unprioritized: Partial<Record<ErrorCode, number>> = {};
  readonly #clock: Clock;
  /** Told of every start, first byte, usage and ending while set (the adaptive limit). */
  observer: RunObserver | null = null;

  constructor(clock: Clock, priorities: readonly ResolvedPriority[]) {
    this.#clock = clock;
    // The listener-error rule: a throw from any listener is reported once as an `error` event; a throw
    // from an `error` listener is dropped (never re-emitted, so it cannot recurse).
    this.events = new Emitter((error, name) => {
      if (name !== "error") this.error(error);
    });
    this.setPriorities(priorities);
  }

  /**
   * A book for each priority not seen before (from `update()`), and every book's queue timeout as now
   * configured. A book outlives its priority's removal: tasks admitted before still point at it.
   */
  setPriorities(priorities: readonly ResolvedPriority[]): void {
    for (const { name, queueTimeoutMs } of priorities) {
      const book = this.#books.get(name);
      if (book === undefined) this.#books.set(name, new PriorityBook(name, queueTimeoutMs));
      else book.queueTimeoutMs = queueTimeoutMs;
    }
  }

  /** The book of a configured priority (see {@link setPriorities}). */
  bookOf(priority: string): PriorityBook | undefined {
    return this.#books.get(priority);
  }

  queued(task: Task): void {
    if (this.events.has("queued")) {
      const { id, priority, tenant, cost, retry } = task;
      this.events.emit("queued", { id, priority, tenant, cost, retry });
    }
  }

  started(task: Task, now: number, waitMs: number): void {
    task.book.stats.recordStart(now, waitMs);
    this.observer?.started(task);
    if (this.events.has("started")) {
      const { id, priority, tenant, cost } = task;
      this.events.emit("started", { id, priority, tenant, cost, waitMs });
    }
  }

  /** True when someone listens for `firstByte`: holders skip watching for it otherwise. */
  get wantsFirstByte(): boolean {
    return this.observer !== null || this.events.has("firstByte");
  }

  /** The permit's holder sent the first byte of its response. */
  firstByte(task: Task, waitMs: number): void {
    this.observer?.firstByte(task, this.#clock.now() - task.startedAt);
    if (!this.events.has("firstByte")) return;
    const ttfbMs = Math.max(waitMs, this.#clock.now() - task.enqueuedAt);
    const { id, priority, tenant, cost } = task;
    this.events.emit("firstByte", { id, priority, tenant, cost, waitMs, ttfbMs });
  }

  /** The task's function fulfilled with `value` (a returned `Response` may still say 429/503). */
  completed(task: Task, value?: unknown): void {
    task.book.stats.completed++;
    this.observer?.ended(task, true, value);
    if (this.events.has("completed")) {
      // One literal per payload (no spread): listeners such as exporters see every task.
      const { id, priority, tenant, cost } = task;
      this.events.emit("completed", {
        id,
        priority,
        tenant,
        cost,
        waitMs: task.run?.waitMs ?? 0,
        runMs: Math.max(0, this.#clock.now() - task.startedAt),
      });
    }
  }

  failed(task: Task, error: unknown): void {
    task.book.stats.failed++;
    this.observer?.ended(task, false, error);
    if (this.events.has("failed")) {
      const code = error instanceof SchedulerError ? error.code : undefined;
      this.events.emit("failed", { ...describe(task), ...this.#timings(task), error, code });
    }
  }

  /** A task that never started was answered with `error`. */
  rejected(task: Task, error: SchedulerError, now: number): void {
    task.book.stats.recordRejection(error.code);
    if (this.events.has("rejected")) {
      const waitMs = now - task.enqueuedAt;
      this.events.emit("rejected", {
        ...describe(task),
        code: error.code,
        waitMs,
        retryAfterMs: error.retryAfterMs,
      });
    }
  }

  /** A call refused before it became a task (bad options, closed). */
  refused(error: SchedulerError, priority: string | undefined): void {
    const stats = priority === undefined ? undefined : this.#books.get(priority)?.stats;
    if (stats) stats.recordRejection(error.code);
    else this.#unprioritized[error.code] = (this.#unprioritized[error.code] ?? 0) + 1;
  }

  overrun(task: Task): void {
    task.book.stats.overruns++;
    const heldMs = this.#clock.now() - task.startedAt;
    if (this.events.has("overrun")) this.events.emit("overrun", { ...describe(task), heldMs });
  }

  /** A running task was preempted by an arrival of priority `by`; it ran `runMs`, lost. */
  preempted(task: Task, by: string, runMs: number, preemptions: number): void {
    const stats = task.book.stats;
    stats.preempted++;
    stats.preemptedRunMs += runMs;
    if (this.events.has("preempted"))
      this.events.emit("preempted", { ...describe(task), runMs, preemptions, by });
  }

  idle(): void {
    if (this.events.has("idle")) this.events.emit("idle", { at: this.#clock.now() });
  }

  error(error: unknown): void {
    if (this.events.has("error")) this.events.emit("error", { error });
  }

  /**
   * How long a caller of `priority` refused with `code` should wait, from the start rate over every
   * instance (`sharedRate`, starts per second) when the store measures one, else this instance's.
   */
  retryAfter(
    priority: ResolvedPriority | undefined,
    depth: number,
    code: ErrorCode,
    sharedRate: number | undefined,
  ): number | undefined {
    const stats = priority === undefined ? undefined : this.#books.get(priority.name)?.stats;
    if (priority === undefined || stats === undefined) return undefined;
    const now = this.#clock.now();
    const perMs =
      typeof sharedRate === "number" && sharedRate > 0 && Number.isFinite(sharedRate)
        ? sharedRate / 1000
        : stats.drain.rate(now);
    return retryAfterMs(priority, perMs, depth, code);
  }

  metrics(closed: boolean, maxConcurrency: number, store: StoreSnapshot): MetricsSnapshot {
    return buildMetrics(this.#clock.now(), closed, maxConcurrency, store, this.#books, this.#unprioritized);
  }

  /** The same `waitMs` as the `started` event (the same subtraction), and a `runMs` that is never negative. */
  #timings(task: Task): { waitMs: number; runMs: number } {
    const waitMs = task.run?.waitMs ?? 0;
    return { waitMs, runMs: Math.max(0, this.#clock.now() - task.startedAt) };
  }
}

function describe(task: Task): TaskEventBase {
  return { id: task.id, priority: task.priority, tenant: task.tenant, cost: task.cost };
}

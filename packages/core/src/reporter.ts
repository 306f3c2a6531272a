import { retryAfterMs } from "./admission.js";
import type { Clock } from "./clock.js";
import { Emitter } from "./emitter.js";
import { type ErrorCode, SchedulerError } from "./errors.js";
import type { SchedulerEvents, TaskEventBase } from "./events.js";
import type { ResolvedPriority } from "./options.js";
import { buildMetrics, type MetricsSnapshot, PriorityStats } from "./stats.js";
import type { StoreSnapshot } from "./store.js";
import type { Task } from "./task.js";

/**
 * What the scheduler tells the world: the typed events and the counters behind `metrics()`. It builds
 * an event's payload only when someone listens, and never sees request contents.
 */
export class Reporter {
  readonly events: Emitter<SchedulerEvents>;
  readonly #stats = new Map<string, PriorityStats>();
  readonly #unprioritized: Partial<Record<ErrorCode, number>> = {};
  readonly #clock: Clock;
  /** Clock time that task start times (`task.startedAt`, whole ms) count from. */
  readonly origin: number;

  constructor(clock: Clock, priorities: readonly ResolvedPriority[]) {
    this.#clock = clock;
    this.origin = clock.now();
    this.events = new Emitter((error) => this.error(error));
    this.addPriorities(priorities);
  }

  /** Counters for priorities added by `update()`. */
  addPriorities(priorities: readonly ResolvedPriority[]): void {
    for (const { name } of priorities) if (!this.#stats.has(name)) this.#stats.set(name, new PriorityStats());
  }

  queued(task: Task): void {
    if (this.events.has("queued")) {
      const { id, priority, tenant, cost, retry } = task;
      this.events.emit("queued", { id, priority, tenant, cost, retry });
    }
  }

  started(task: Task, now: number, waitMs: number): void {
    this.#stats.get(task.priority)?.recordStart(now, waitMs);
    if (this.events.has("started")) {
      const { id, priority, tenant, cost } = task;
      this.events.emit("started", { id, priority, tenant, cost, waitMs });
    }
  }

  /** True when someone listens for `firstByte`: holders skip watching for it otherwise. */
  get wantsFirstByte(): boolean {
    return this.events.has("firstByte");
  }

  /** The permit's holder sent the first byte of its response. */
  firstByte(task: Task, waitMs: number): void {
    if (!this.events.has("firstByte")) return;
    const ttfbMs = Math.max(waitMs, this.#clock.now() - task.enqueuedAt);
    const { id, priority, tenant, cost } = task;
    this.events.emit("firstByte", { id, priority, tenant, cost, waitMs, ttfbMs });
  }

  completed(task: Task): void {
    const stats = this.#stats.get(task.priority);
    if (stats) stats.completed++;
    if (this.events.has("completed")) {
      // One literal per payload (no spread): listeners such as exporters see every task.
      const { id, priority, tenant, cost } = task;
      const startedAt = this.origin + task.startedAt;
      const waitMs = Math.max(0, startedAt - task.enqueuedAt);
      this.events.emit("completed", {
        id,
        priority,
        tenant,
        cost,
        waitMs,
        runMs: this.#clock.now() - startedAt,
      });
    }
  }

  failed(task: Task, error: unknown): void {
    const stats = this.#stats.get(task.priority);
    if (stats) stats.failed++;
    if (this.events.has("failed")) {
      const code = error instanceof SchedulerError ? error.code : undefined;
      this.events.emit("failed", { ...describe(task), ...this.#timings(task), error, code });
    }
  }

  /** A task that never started was answered with `error`. */
  rejected(task: Task, error: SchedulerError, now: number): void {
    this.#stats.get(task.priority)?.recordRejection(error.code);
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
    const stats = priority === undefined ? undefined : this.#stats.get(priority);
    if (stats) stats.recordRejection(error.code);
    else this.#unprioritized[error.code] = (this.#unprioritized[error.code] ?? 0) + 1;
  }

  overrun(task: Task): void {
    const stats = this.#stats.get(task.priority);
    if (stats) stats.overruns++;
    const heldMs = this.#clock.now() - this.origin - task.startedAt;
    if (this.events.has("overrun")) this.events.emit("overrun", { ...describe(task), heldMs });
  }

  idle(): void {
    if (this.events.has("idle")) this.events.emit("idle", { at: this.#clock.now() });
  }

  error(error: unknown): void {
    if (this.events.has("error")) this.events.emit("error", { error });
  }

  /** How long a refused caller of `priority` should wait, from its measured start rate. */
  retryAfter(priority: ResolvedPriority | undefined, depth: number): number | undefined {
    const stats = priority === undefined ? undefined : this.#stats.get(priority.name);
    if (priority === undefined || stats === undefined) return undefined;
    return retryAfterMs(priority, stats, depth, this.#clock.now());
  }

  metrics(closed: boolean, maxConcurrency: number, store: StoreSnapshot): MetricsSnapshot {
    return buildMetrics(this.#clock.now(), closed, maxConcurrency, store, this.#stats, this.#unprioritized);
  }

  #timings(task: Task): { waitMs: number; runMs: number } {
    const startedAt = this.origin + task.startedAt;
    return { waitMs: Math.max(0, startedAt - task.enqueuedAt), runMs: this.#clock.now() - startedAt };
  }
}

function describe(task: Task): TaskEventBase {
  return { id: task.id, priority: task.priority, tenant: task.tenant, cost: task.cost };
}

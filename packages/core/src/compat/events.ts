import type { SchedulerEvents } from "../events.js";

/** The two priorities of `LlmScheduler`. */
export type TaskPriority = "interactive" | "batch";

/**
 * A unit of work as the write-up describes it: an id, a priority and the function that calls the model.
 *
 * @example
 * const task: Task<string> = { id: "req-1", priority: "interactive", run: () => callModel(prompt) };
 * await scheduler.submit(task.id, task.priority, task.run);
 */
export interface Task<T = unknown> {
  id: string;
  priority: TaskPriority;
  run: () => Promise<T>;
}

/** `queued`: fired on every accepted `submit()`, the new task counted in its queue. */
export interface QueuedEvent {
  readonly id: string;
  readonly priority: TaskPriority;
  readonly interactiveWaiting: number;
  readonly batchWaiting: number;
}

/** `started` and `completed`: the task's function was called, or fulfilled. */
export interface TaskEvent {
  readonly id: string;
  readonly priority: TaskPriority;
}

/** `failed`: the task's function threw or rejected with `error`. */
export interface FailedEvent extends TaskEvent {
  readonly error: unknown;
}

/** `drained`: fired after every task that ran, once its function settled. */
export interface DrainedEvent {
  readonly running: number;
  readonly interactiveWaiting: number;
  readonly batchWaiting: number;
}

/**
 * Events of `LlmScheduler`, each name mapped to its arguments: the write-up's five, plus `rejected` (a
 * task that never ran: queue timeout, abort, close) and `error` (a listener threw, or a background fault).
 */
export interface LlmSchedulerEvents {
  queued: [event: QueuedEvent];
  started: [event: TaskEvent];
  completed: [event: TaskEvent];
  failed: [event: FailedEvent];
  drained: [event: DrainedEvent];
  rejected: [event: SchedulerEvents["rejected"]];
  error: [error: unknown];
}

/** What `LlmScheduler.getMetrics()` returns: the write-up's three counts, and more. */
export interface LlmSchedulerMetrics {
  readonly running: number;
  readonly interactiveWaiting: number;
  readonly batchWaiting: number;
  readonly interactiveRunning: number;
  readonly batchRunning: number;
  readonly completed: number;
  readonly failed: number;
  /** Tasks rejected for waiting longer than their queue timeout. */
  readonly timedOut: number;
}

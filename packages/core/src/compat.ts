/**
 * `@llm-scheduler/core/compat`: the write-up's `LlmScheduler` API, to the letter, built on the core
 * scheduler; kept off the main entry so that code using only `createScheduler` does not carry it.
 */
export { type EmitterListener, EventEmitter } from "./compat/event-emitter.js";
export type {
  DrainedEvent,
  FailedEvent,
  LlmSchedulerEvents,
  LlmSchedulerMetrics,
  QueuedEvent,
  Task,
  TaskEvent,
  TaskPriority,
} from "./compat/events.js";
export { LlmScheduler } from "./compat/llm-scheduler.js";
export type { LlmSchedulerOptions } from "./compat/options.js";

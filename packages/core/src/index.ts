export type { AdaptiveOptions, ConcurrencyRange } from "./adaptive/options.js";
export type { TaskOptions } from "./admission.js";
export { type Clock, systemClock, type TimerHandle, VirtualClock } from "./clock.js";
export type { Listener } from "./emitter.js";
export { ErrorCode, isSchedulerError, SchedulerError, type SchedulerErrorOptions } from "./errors.js";
export type {
  LimitEvent,
  LimitReason,
  SchedulerEventName,
  SchedulerEvents,
  TaskEventBase,
} from "./events.js";
export { type ErrorBody, type ErrorResponse, errorResponseFor, httpStatusFor } from "./http.js";
export type {
  PreemptibleOptions,
  PriorityOptions,
  ResolvedOptions,
  ResolvedPreemption,
  ResolvedWaitTargets,
  SchedulerOptions,
  SchedulerUpdate,
  TenantOptions,
  WaitTargetOptions,
} from "./options.js";
export { Permit } from "./permit.js";
export { type CloseOptions, createScheduler, Scheduler } from "./scheduler.js";
export { optionsFromJson, toJsonSchema } from "./schema/json-schema.js";
export type { Infer, InferShape, JsonSchema, Meta, Node, Shape } from "./schema/schema.js";
export { shortKey } from "./short-key.js";
export type { MetricsSnapshot, PriorityMetrics, PriorityShare, TaskCounts } from "./stats.js";
export type { ResolvedPriority, ResolvedTenant, TokenUsage } from "./store.js";
export type { TaskContext, TaskFunction } from "./task.js";
export type { Quantiles } from "./wait-sketch.js";

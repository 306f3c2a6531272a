export type { Admitted, TaskOptions } from "./admission.js";
export { type Clock, systemClock, type TimerHandle, VirtualClock } from "./clock.js";
export type { Listener } from "./emitter.js";
export { ErrorCode, isSchedulerError, SchedulerError, type SchedulerErrorOptions } from "./errors.js";
export type { SchedulerEventName, SchedulerEvents, TaskEventBase } from "./events.js";
export { type HeapItem, IndexedHeap } from "./heap.js";
export { type ErrorBody, type ErrorResponse, errorResponseFor, httpStatusFor } from "./http.js";
export { MemoryStore } from "./memory/memory-store.js";
export type {
  PriorityOptions,
  ResolvedOptions,
  ResolvedPriority,
  SchedulerOptions,
  SchedulerUpdate,
  TenantOptions,
} from "./options.js";
export { Permit } from "./permit.js";
export {
  givenRequestId,
  type HeaderReader,
  Headers,
  isRetryRequest,
  lowerOnlyPriority,
  requestIdOf,
  serverTiming,
} from "./request.js";
export { type CloseOptions, createScheduler, Scheduler } from "./scheduler.js";
export type { MetricsSnapshot, PriorityMetrics, TaskCounts } from "./stats.js";
export type { EnqueueResult, MaybePromise, Store, StoreHost, StoreSnapshot, Ticket } from "./store.js";
export type { TaskContext, TaskFunction } from "./task.js";
export { invalid as invalidOption } from "./validate.js";
export type { Quantiles } from "./wait-sketch.js";

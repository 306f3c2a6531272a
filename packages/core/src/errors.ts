/** Every code a {@link SchedulerError} can carry. Stable: safe to switch on and to put in logs and metrics. */
export const ErrorCode = {
  /** The priority's queue (or the whole queue) is at its bound; retry after `retryAfterMs`. */
  QUEUE_FULL: "QUEUE_FULL",
  /** The tenant's own queue bound (`maxQueue` of `tenants` or `tenantDefaults`) was reached. */
  TENANT_QUEUE_FULL: "TENANT_QUEUE_FULL",
  /** The tenant's token bucket (`tokensPerMinute`) cannot cover the task; `retryAfterMs` is its refill time. */
  RATE_LIMITED: "RATE_LIMITED",
  /** The task waited longer than its priority's `queueTimeoutMs` without getting a slot. */
  QUEUE_TIMEOUT: "QUEUE_TIMEOUT",
  /** The task ran longer than its `timeoutMs`; its signal was aborted. */
  RUN_TIMEOUT: "RUN_TIMEOUT",
  /** The caller's signal aborted the task (queued or running). `cause` is `signal.reason`. */
  ABORTED: "ABORTED",
  /**
   * A more urgent task took the slot (preemption, see `PriorityOptions.preempts`). A `run()` caller never
   * sees it (the function runs again later); a permit's holder does, and should answer 503 and stop.
   */
  PREEMPTED: "PREEMPTED",
  /** The scheduler is closing or closed and admits nothing more. */
  CLOSED: "CLOSED",
  /** An option (at construction, in `update()` or on one call) is invalid. */
  INVALID_OPTION: "INVALID_OPTION",
  /** The requested priority is not configured. */
  INVALID_PRIORITY: "INVALID_PRIORITY",
  /** The shared store (e.g. Redis) could not be reached. */
  STORE_UNAVAILABLE: "STORE_UNAVAILABLE",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Options accepted by the {@link SchedulerError} constructor besides code and message. */
export interface SchedulerErrorOptions {
  readonly cause?: unknown;
  /** How long the caller should wait before trying again, when that can be estimated. */
  readonly retryAfterMs?: number;
  /** The task or request id the error belongs to, if any. */
  readonly id?: string;
  /** The priority the task asked for, if any. */
  readonly priority?: string;
}

/**
 * The one error type the scheduler throws or rejects with. Switch on `code`, never on `message`.
 *
 * @example
 * try {
 *   await scheduler.run(task, { priority: "batch" });
 * } catch (error) {
 *   if (error instanceof SchedulerError && error.code === "QUEUE_FULL") {
 *     console.log(`try again in ${error.retryAfterMs} ms`);
 *   }
 * }
 */
export class SchedulerError extends Error {
  readonly code: ErrorCode;
  readonly retryAfterMs: number | undefined;
  readonly id: string | undefined;
  readonly priority: string | undefined;

  constructor(code: ErrorCode, message: string, options: SchedulerErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryAfterMs = options.retryAfterMs;
    this.id = options.id;
    this.priority = options.priority;
  }
}

/** True when `value` is a {@link SchedulerError}, optionally with the given code. */
export function isSchedulerError(value: unknown, code?: ErrorCode): value is SchedulerError {
  return value instanceof SchedulerError && (code === undefined || value.code === code);
}

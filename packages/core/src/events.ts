import type { ErrorCode } from "./errors.js";

/** Fields every task event carries: ids and timings, never request contents. */
export interface TaskEventBase {
  /** The id given with the task, or the scheduler's own sequence number as a string. */
  readonly id: string;
  readonly priority: string;
  readonly tenant: string;
  readonly cost: number;
}

/** The events `scheduler.on()` offers, each with its payload. */
export interface SchedulerEvents {
  /** The task waits for a slot. */
  queued: TaskEventBase & { readonly retry: boolean };
  /** The task got a slot. */
  started: TaskEventBase & { readonly waitMs: number };
  /**
   * The first byte of the response went out (reported by the holder of a permit, such as the adapters,
   * through `permit.firstByte()`): `ttfbMs` is the queue wait plus the upstream's time to first byte,
   * what a chat user feels. At most once per permit.
   */
  firstByte: TaskEventBase & { readonly waitMs: number; readonly ttfbMs: number };
  /** The task's function fulfilled (or the permit was released normally). */
  completed: TaskEventBase & { readonly waitMs: number; readonly runMs: number };
  /** The task's function threw or rejected, or it was stopped while running (`RUN_TIMEOUT`, `ABORTED`, `CLOSED`). */
  failed: TaskEventBase & {
    readonly waitMs: number;
    readonly runMs: number;
    readonly error: unknown;
    readonly code: ErrorCode | undefined;
  };
  /** The task never started: refused at admission or removed from the queue. */
  rejected: TaskEventBase & {
    readonly code: ErrorCode;
    readonly waitMs: number;
    readonly retryAfterMs: number | undefined;
  };
  /**
   * A slot was freed although the task's function had not settled `abortGraceMs` after its signal was
   * aborted: the function ignores its signal, and the upstream may briefly see more than the limit.
   */
  overrun: TaskEventBase & { readonly heldMs: number };
  /**
   * A running task was stopped to make room for a more urgent arrival (see `PriorityOptions.preempts`):
   * its signal aborted with `PREEMPTED`; a task goes back to the front of its queue, a permit's holder
   * answers 503. `runMs` is the work lost; `preemptions` counts this task's preemptions so far, this one
   * included; `by` is the arrival's priority.
   */
  preempted: TaskEventBase & { readonly runMs: number; readonly preemptions: number; readonly by: string };
  /** The adaptive limit changed (see `maxConcurrency: { initial, min, max }`). */
  limit: LimitEvent;
  /**
   * A tenant's own 429s (while other tenants succeed) changed its hold: `maxConcurrency` is its
   * concurrency now, `null` when the hold ended; `previous` the one before, `null` when it was not held.
   * Only with an adaptive limit.
   */
  backoff: {
    readonly tenant: string;
    readonly maxConcurrency: number | null;
    readonly previous: number | null;
  };
  /**
   * The wait-target controller gave a priority with `targetWaitMs` a new effective share: raised because
   * its p95 queue wait went above the target, given back because its waits stayed well under it, or
   * bounded afresh because the adaptive limit moved (`reason: "limit"`: a reserve never exceeds the
   * limit in force).
   */
  share: {
    readonly priority: string;
    /** The effective weight and reserved slots now. */
    readonly weight: number;
    readonly reserved: number;
    readonly previousWeight: number;
    readonly previousReserved: number;
    /** What the options say (the floor of the effective values). */
    readonly configuredWeight: number;
    readonly configuredReserved: number;
    readonly targetWaitMs: number;
    /** The p95 queue wait of the window that was judged, in ms. */
    readonly p95Ms: number;
    readonly reason: "above-target" | "under-target" | "limit";
  };
  /** Nothing waits and nothing runs. */
  idle: { readonly at: number };
  /** A listener threw, or the store failed in the background. */
  error: { readonly error: unknown };
}

/** Names of {@link SchedulerEvents}. */
export type SchedulerEventName = keyof SchedulerEvents;

/**
 * Why the adaptive limit changed: `increase` (a window used the limit fully, or its upstream said it had
 * room, without overload),
 * `overload` (an upstream 503, a 429 while no other tenant succeeds, a connection error or a run
 * timeout), `latency` (a window's median time to first byte, per output token or run time above its
 * tolerance), `upstream` (the upstream's own reading of its load, `Scheduler.upstreamLoad`, stayed over
 * 1 through a window: it queued), `update` (set by `update()`), `shared` (another instance changed the
 * global limit of a shared store).
 */
export type LimitReason = "increase" | "overload" | "latency" | "upstream" | "update" | "shared";

/** Payload of the `limit` event. */
export interface LimitEvent {
  readonly limit: number;
  readonly previous: number;
  readonly reason: LimitReason;
  /** For `latency`: the window's median and the baseline it was held against, ms. */
  readonly medianMs?: number;
  readonly baselineMs?: number;
}

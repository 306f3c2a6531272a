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
   * The wait-target controller gave a priority with `targetWaitMs` a new effective share: raised because
   * its p95 queue wait went above the target, or given back because its waits stayed well under it.
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
    readonly reason: "above-target" | "under-target";
  };
  /** Nothing waits and nothing runs. */
  idle: { readonly at: number };
  /** A listener threw, or the store failed in the background. */
  error: { readonly error: unknown };
}

/** Names of {@link SchedulerEvents}. */
export type SchedulerEventName = keyof SchedulerEvents;

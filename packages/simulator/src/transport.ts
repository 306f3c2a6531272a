import type { Scheduler } from "@llm-scheduler/core";
import type { RequestSpec } from "./workload.js";

/** One try at a request: the first send, or a retry. */
export interface Attempt {
  /** Unique per attempt: `chat-17#0`, `chat-17#1` for its first retry. */
  readonly id: string;
  readonly request: RequestSpec;
  /** 0 for the first try, 1 for the first retry, and so on. */
  readonly number: number;
  /** Aborts when the client gives up on this attempt (its timeout). */
  readonly signal: AbortSignal;
}

/** An answer that is not a generation: a gateway rejection, an upstream error, a cancelled call. */
export interface AttemptFailure {
  /** The HTTP status (429, 503, 500...); 499 when the call was cancelled or the connection failed. */
  readonly status: number;
  /** How long the gateway asked the client to wait (`retry-after-ms`), when it said. */
  readonly retryAfterMs?: number;
  readonly message: string;
}

/** What a transport reports about one attempt; at most one of `completed`/`failed` is called. */
export interface AttemptHooks {
  /** The first token arrived (for a streamed answer; a whole answer reports it just before `completed`). */
  firstToken(): void;
  completed(): void;
  failed(failure: AttemptFailure): void;
}

/** How a client's attempt reaches the gateway: a direct call in virtual time, HTTP in real time. */
export interface Transport {
  send(attempt: Attempt, hooks: AttemptHooks): void;
}

/** Queue depth and in-flight count per priority at one moment. */
export interface LoadSnapshot {
  readonly queued: Readonly<Record<string, number>>;
  readonly running: Readonly<Record<string, number>>;
  /** The gateway's concurrency limit in force (it moves with an adaptive limit). */
  readonly limit?: number;
}

/** The load of a scheduler, per priority, from its metrics. */
export function schedulerLoad(scheduler: Scheduler): LoadSnapshot {
  const queued: Record<string, number> = {};
  const running: Record<string, number> = {};
  for (const [name, stats] of Object.entries(scheduler.metrics().priorities)) {
    queued[name] = stats.queued;
    running[name] = stats.running;
  }
  return { queued, running, limit: scheduler.maxConcurrency };
}

/**
 * The slots each priority of a scheduler keeps for itself (its `reserved`), for the slot meter.
 *
 * @example
 * new Recorder(clock, { capacity: 8, reserved: reservedOf(scheduler) });
 */
export function reservedOf(scheduler: Scheduler): Record<string, number> {
  const reserved: Record<string, number> = {};
  for (const priority of scheduler.options.priorities) reserved[priority.name] = priority.reserved;
  return reserved;
}

/** A gateway: a transport whose load can be read at any time. */
export interface Gateway extends Transport {
  snapshot(): LoadSnapshot;
}

/**
 * Where a gateway reports each attempt's path through it: arrival, queue wait, and the end of its time
 * upstream. From these the recorder measures waits and how busy the slots were.
 */
export interface WaitSink {
  /** The attempt reached the gateway and waits for a slot (called before its `queueWait`). */
  arrived(priority: string): void;
  /**
   * `started` is false when the attempt left the queue without being sent upstream (the client gave up,
   * or the gateway rejected it); `waitMs` is then how long it had waited, a lower bound.
   */
  queueWait(priority: string, waitMs: number, started: boolean): void;
  /** An attempt that was sent upstream has let go of its slot (answered, failed or cancelled). */
  released(priority: string): void;
}

import { RUNNING, RunContext, type Task } from "./task.js";
import type { TokenUsage } from "./usage.js";

/** @internal How a permit reaches back into its scheduler (one object per scheduler, not per permit). */
export interface PermitControl {
  release(task: Task, failure: unknown): void;
  abort(task: Task, reason: unknown): void;
  usage(task: Task, usage: TokenUsage): void;
}

/**
 * The right to have one request in flight upstream, for code that cannot wrap its work in a function
 * (a middleware that holds the slot until a streamed response has been sent). Release it exactly when
 * the work is over; `release()` is idempotent.
 *
 * @example
 * const permit = await scheduler.acquire({ priority: "interactive", tenant: "alice", signal });
 * try {
 *   await streamUpstream({ signal: permit.signal });
 * } finally {
 *   permit.release();
 * }
 */
export class Permit extends RunContext {
  readonly #task: Task;
  readonly #control: PermitControl;

  /** @internal Created by the scheduler when a slot is granted. */
  constructor(task: Task, waitMs: number, control: PermitControl) {
    super(task, waitMs, control.usage);
    this.#task = task;
    this.#control = control;
  }

  /** False once released (by this call, or by the grace bound after the signal fired). */
  get held(): boolean {
    return this.#task.phase === RUNNING;
  }

  /**
   * Gives the slot back. Pass the error when the work failed, so that metrics count it as failed.
   * Idempotent: later calls do nothing.
   */
  release(error?: unknown): void {
    this.#control.release(this.#task, error);
  }

  /**
   * Aborts the permit's signal (its holder should stop the upstream call), for example because the
   * client went away. The slot stays held until `release()`, or at most `abortGraceMs`. Idempotent.
   */
  abort(reason?: unknown): void {
    this.#control.abort(this.#task, reason);
  }
}

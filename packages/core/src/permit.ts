import { RUNNING, RunContext, type Task } from "./task.js";
import type { TokenUsage } from "./usage.js";

/** @internal How a permit reaches back into its scheduler (one object per scheduler, not per permit). */
export interface PermitControl {
  release(task: Task, failure: unknown): void;
  abort(task: Task, reason: unknown): void;
  /** Reports the first byte of the permit's response (the `firstByte` event), if the task still runs. */
  firstByte(task: Task, waitMs: number): void;
  /** True when someone listens for `firstByte`, or the task could be preempted (until its first byte). */
  wantsFirstByte(task: Task): boolean;
  /** True when a more urgent priority could preempt the task. */
  preemptible(task: Task): boolean;
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
  #firstByteSent = false;

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
   * True when a more urgent arrival could preempt this permit (see `PriorityOptions.preempts`) until it
   * reports its first byte: its holder should then watch `signal` for a `PREEMPTED` reason and answer
   * 503, as the adapters do.
   */
  get preemptible(): boolean {
    return !this.#firstByteSent && this.#control.preemptible(this.#task);
  }

  /**
   * Gives the slot back. Pass the error when the work failed, so that metrics count it as failed.
   * Idempotent: later calls do nothing.
   */
  release(error?: unknown): void {
    this.#control.release(this.#task, error);
  }

  /**
   * True while reporting the first byte would reach someone: a listener waits for the scheduler's
   * `firstByte` event, or the permit could be preempted (a permit that sent its first byte never is),
   * and this permit has not reported it yet. Holders check it before watching for
   * the first byte, so that nobody pays for it unasked.
   *
   * @example
   * if (permit.wantsFirstByte) watchFirstWrite(res, () => permit.firstByte());
   */
  get wantsFirstByte(): boolean {
    return !this.#firstByteSent && this.#control.wantsFirstByte(this.#task);
  }

  /**
   * Reports that the first byte of the response went out: the scheduler emits `firstByte` with the
   * queue wait and the time to first byte (wait plus upstream). The adapters call it; call it yourself
   * when you hold a permit around a streamed response. Only the first call counts, and only while the
   * permit is held.
   *
   * @example
   * for await (const chunk of upstream.body) {
   *   permit.firstByte();
   *   res.write(chunk);
   * }
   */
  firstByte(): void {
    if (this.#firstByteSent) return;
    this.#firstByteSent = true;
    this.#control.firstByte(this.#task, this.waitMs);
  }

  /**
   * Aborts the permit's signal (its holder should stop the upstream call), for example because the
   * client went away. The slot stays held until `release()`, or at most `abortGraceMs`. Idempotent.
   */
  abort(reason?: unknown): void {
    this.#control.abort(this.#task, reason);
  }
}

import { admitExtras, admitPriority, admitTenant, type TaskOptions } from "./admission.js";
import { ErrorCode, SchedulerError } from "./errors.js";
import type { ResolvedOptions } from "./options.js";
import { RecentIds } from "./recent-ids.js";
import type { Reporter } from "./reporter.js";
import { type CallExtras, Task, type TaskFunction } from "./task.js";
import { TenantCredits } from "./tenant-credits.js";

/**
 * Turns one call into a task record: validates its options, refuses it when closed or already aborted,
 * numbers it, and decides whether it is a real retry (a trusted `retry`, an id refused recently, or a
 * claimed retry backed by an unused recent refusal of its tenant). Refusals are counted in metrics.
 */
export class Intake {
  /** Ids refused or timed out recently. */
  readonly recent: RecentIds;
  /** One credit per recent refusal of a tenant, for its claimed retries. */
  readonly credits: TenantCredits;
  readonly #reporter: Reporter;
  readonly #onAbort: (task: Task) => void;
  #seq = 0;

  constructor(options: ResolvedOptions, reporter: Reporter, onAbort: (task: Task) => void) {
    this.recent = new RecentIds(options.retryWindowMs, options.retryMemory);
    this.credits = new TenantCredits(options.retryWindowMs, options.retryMemory);
    this.#reporter = reporter;
    this.#onAbort = onAbort;
  }

  /**
   * The task for one call; throws (and counts) a refusal. `mayQueue` is false for `tryAcquire`, whose
   * task never queues: it must not use up a remembered retry.
   */
  create(
    config: ResolvedOptions,
    closed: boolean,
    fn: TaskFunction<unknown> | null,
    options: TaskOptions,
    resolve: (v: unknown) => void,
    mayQueue: boolean,
  ): Task {
    const given = options ?? {};
    try {
      if (closed) throw new SchedulerError(ErrorCode.CLOSED, "The scheduler is closed");
      const tenant = admitTenant(given, config);
      const priority = admitPriority(given, config, tenant);
      const extras = admitExtras(given, priority, this.#onAbort);
      const signal = extras === null ? null : extras.signal;
      if (signal?.aborted) {
        throw new SchedulerError(ErrorCode.ABORTED, "The task's signal was aborted before it was queued", {
          cause: signal.reason,
          id: extras!.id,
          priority: priority.name,
        });
      }
      const now = config.clock.now();
      if (extras !== null && !extras.retry && mayQueue && this.#isRetry(extras, tenant, now))
        extras.retry = true;
      const book = this.#reporter.bookOf(priority.name)!;
      return new Task(++this.#seq, now, book, tenant, extras, fn, resolve);
    } catch (error) {
      if (error instanceof SchedulerError) this.#reporter.refused(error, given.priority);
      throw error;
    }
  }

  #isRetry(extras: CallExtras, tenant: string, now: number): boolean {
    if (extras.id !== undefined && this.recent.take(extras.id, now)) return true;
    return extras.claimedRetry && this.credits.take(tenant, now);
  }
}

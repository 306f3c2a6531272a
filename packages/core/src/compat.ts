import type { Listener } from "./emitter.js";
import type { SchedulerEvents } from "./events.js";
import { createScheduler, type Scheduler } from "./scheduler.js";
import { positiveInteger, positiveNumber } from "./validate.js";

/** Options of {@link LlmScheduler}, as in the write-up it comes from, plus two that make it keep its promise. */
export interface LlmSchedulerOptions {
  /** Requests in flight upstream at once. */
  readonly maxConcurrency: number;
  /** @default 5 */
  readonly interactiveWeight?: number;
  /** @default 1 */
  readonly batchWeight?: number;
  /** @default 5_000 */
  readonly interactiveQueueTimeoutMs?: number;
  /** @default 300_000 */
  readonly batchQueueTimeoutMs?: number;
  /**
   * Slots kept for interactive requests, so that one arriving behind a full batch backlog starts at once.
   * @default 1 (0 when maxConcurrency is 1)
   */
  readonly interactiveReserved?: number;
  /**
   * A batch task that has waited this long goes next, so batch work keeps moving under interactive load.
   * @default half of batchQueueTimeoutMs
   */
  readonly batchMaxWaitMs?: number;
}

/** The two priorities of {@link LlmScheduler}. */
export type LlmPriority = "interactive" | "batch";

/** What {@link LlmScheduler.getMetrics} returns. */
export interface LlmSchedulerMetrics {
  readonly running: number;
  readonly interactiveWaiting: number;
  readonly batchWaiting: number;
  readonly interactiveRunning: number;
  readonly batchRunning: number;
  readonly completed: number;
  readonly failed: number;
  readonly timedOut: number;
}

/** Events of {@link LlmScheduler}: the core's task events plus `drained` (nothing waits or runs). */
export type LlmSchedulerEvents = Pick<
  SchedulerEvents,
  "queued" | "started" | "completed" | "failed" | "rejected"
> & {
  readonly drained: { readonly at: number };
};

/**
 * The two-lane scheduler API of the well-known write-up, built on the new core. Same constructor,
 * `submit()`, `getMetrics()` and events; but lanes are picked by weighted stride scheduling (not by
 * queue length, which let a long batch backlog win every pick), interactive work has a reserved slot,
 * and batch work ages, so neither lane starves.
 *
 * @example
 * const scheduler = new LlmScheduler({ maxConcurrency: 4 });
 * const reply = await scheduler.submit("req-1", "interactive", (signal) => callModel(prompt, { signal }));
 */
export class LlmScheduler {
  /** The core scheduler underneath, for everything this class does not expose. */
  readonly scheduler: Scheduler;

  constructor(options: LlmSchedulerOptions) {
    const maxConcurrency = positiveInteger("maxConcurrency", options?.maxConcurrency);
    const batchQueueTimeoutMs = positiveNumber("batchQueueTimeoutMs", options.batchQueueTimeoutMs ?? 300_000);
    this.scheduler = createScheduler({
      maxConcurrency,
      defaultPriority: "interactive",
      priorities: {
        interactive: {
          weight: options.interactiveWeight ?? 5,
          reserved: options.interactiveReserved ?? (maxConcurrency > 1 ? 1 : 0),
          queueTimeoutMs: options.interactiveQueueTimeoutMs ?? 5_000,
          maxQueue: Number.POSITIVE_INFINITY,
        },
        batch: {
          weight: options.batchWeight ?? 1,
          queueTimeoutMs: batchQueueTimeoutMs,
          maxQueue: Number.POSITIVE_INFINITY,
          maxWaitMs: options.batchMaxWaitMs ?? batchQueueTimeoutMs / 2,
        },
      },
    });
  }

  /** Queues `run` under `id` in the given lane; resolves with its result or rejects with a `SchedulerError`. */
  submit<T>(id: string, priority: LlmPriority, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.scheduler.run(({ signal }) => run(signal), { id, priority });
  }

  getMetrics(): LlmSchedulerMetrics {
    const { running, priorities, completed, failed } = this.scheduler.metrics();
    const interactive = priorities.interactive!;
    const batch = priorities.batch!;
    return {
      running,
      interactiveWaiting: interactive.queued,
      batchWaiting: batch.queued,
      interactiveRunning: interactive.running,
      batchRunning: batch.running,
      completed,
      failed,
      timedOut: (interactive.rejected.QUEUE_TIMEOUT ?? 0) + (batch.rejected.QUEUE_TIMEOUT ?? 0),
    };
  }

  on<K extends keyof LlmSchedulerEvents>(name: K, listener: Listener<LlmSchedulerEvents, K>): () => void {
    const forward = (event: unknown): void => listener(event as LlmSchedulerEvents[K]);
    return this.scheduler.on(name === "drained" ? "idle" : (name as Exclude<K, "drained">), forward);
  }

  /** Stops accepting work and waits for running tasks (see `Scheduler.close`). */
  close(options?: { drain?: boolean; timeoutMs?: number }): Promise<void> {
    return this.scheduler.close(options);
  }
}

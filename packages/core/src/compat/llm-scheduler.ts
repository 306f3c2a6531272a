import { ErrorCode, SchedulerError } from "../errors.js";
import { createScheduler, type Scheduler } from "../scheduler.js";
import type { TaskFunction } from "../task.js";
import { EventEmitter } from "./event-emitter.js";
import type { LlmSchedulerEvents, LlmSchedulerMetrics, TaskPriority } from "./events.js";
import { type LlmSchedulerOptions, resolveLlmOptions } from "./options.js";

/** One submitted task's progress, shared by its wrapper and its promise's handler. */
interface Progress {
  started: boolean;
}

const isPriority = (value: unknown): value is TaskPriority => value === "interactive" || value === "batch";

/**
 * The write-up's two-lane scheduler, to the letter: `new LlmScheduler(options)`, `submit(id, priority,
 * run)`, `getMetrics()`, and Node-style events (`on`, `once`, `off`, `emit`) named and shaped as in the
 * write-up. Underneath it is the core scheduler (`createScheduler`): lanes are picked by weighted stride
 * scheduling rather than by queue length, interactive work has a reserved slot and batch work ages, so
 * neither lane starves. A listener that throws never breaks it: the error goes to `error` listeners.
 *
 * @example
 * import { LlmScheduler, type TaskPriority } from "@llm-scheduler/core/compat";
 *
 * const scheduler = new LlmScheduler({ maxConcurrency: 8, interactiveWeight: 5, batchWeight: 1 });
 * scheduler.on("queued", ({ id, interactiveWaiting, batchWaiting }) => console.log(id, interactiveWaiting, batchWaiting));
 * const priority: TaskPriority = "interactive";
 * const reply = await scheduler.submit("req-1", priority, (signal) => fetch(url, { signal }).then((r) => r.json()));
 */
export class LlmScheduler extends EventEmitter<LlmSchedulerEvents> {
  /** The core scheduler underneath, for everything this class does not expose. */
  readonly scheduler: Scheduler;
  readonly #maxQueueSize: number;
  readonly #runTimeoutMs: number | undefined;
  readonly #waiting = { interactive: 0, batch: 0 };
  #running = 0;

  constructor(options: LlmSchedulerOptions) {
    super();
    const resolved = resolveLlmOptions(options);
    this.#maxQueueSize = resolved.maxQueueSize;
    this.#runTimeoutMs = resolved.runTimeoutMs;
    this.scheduler = createScheduler(resolved.core);
    this.scheduler.on("rejected", (event) => this.#notify("rejected", event));
    this.scheduler.on("error", ({ error }) => this.#report(error));
  }

  /**
   * Queues `run` under `id` in the `priority` lane and resolves with what it returns once it ran; rejects
   * with what it threw, or with a `SchedulerError`: `QUEUE_FULL` ("queue is full"), `QUEUE_TIMEOUT`,
   * `RUN_TIMEOUT`, `CLOSED`, `INVALID_PRIORITY`, `INVALID_OPTION`. `run` receives an `AbortSignal` that
   * fires on the run timeout and on `close()`.
   *
   * @example
   * const summary = await scheduler.submit("req-7", "interactive", (signal) => summarize(text, signal));
   */
  submit<T>(id: string, priority: TaskPriority, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const options = { id, priority, timeoutMs: this.#runTimeoutMs };
    if (
      !isPriority(priority) ||
      typeof id !== "string" ||
      typeof run !== "function" ||
      this.scheduler.closed
    ) {
      return this.scheduler.run(run as never, options); // the core rejects it with a typed error
    }
    const waiting = this.#waiting;
    if (waiting.interactive + waiting.batch >= this.#maxQueueSize) {
      return Promise.reject(new SchedulerError(ErrorCode.QUEUE_FULL, "queue is full", { id, priority }));
    }
    waiting[priority]++;
    this.#notify("queued", { id, priority, ...this.#queues() });
    const progress: Progress = { started: false };
    const promise = this.scheduler.run(this.#wrap(id, priority, run, progress), options);
    promise.then(undefined, () => {
      if (!progress.started) waiting[priority]--;
    });
    return promise;
  }

  /**
   * Counts as the write-up reads them (`running`, `interactiveWaiting`, `batchWaiting`), and totals.
   *
   * @example
   * const { running, interactiveWaiting, batchWaiting } = scheduler.getMetrics();
   */
  getMetrics(): LlmSchedulerMetrics {
    const { priorities, completed, failed } = this.scheduler.metrics();
    const interactive = priorities.interactive!;
    const batch = priorities.batch!;
    return {
      running: this.#running,
      ...this.#queues(),
      interactiveRunning: interactive.running,
      batchRunning: batch.running,
      completed,
      failed,
      timedOut: (interactive.rejected.QUEUE_TIMEOUT ?? 0) + (batch.rejected.QUEUE_TIMEOUT ?? 0),
    };
  }

  /**
   * Stops accepting work (`CLOSED`) and waits for running tasks; see the core's `Scheduler.close`.
   *
   * @example
   * await scheduler.close({ drain: true, timeoutMs: 30_000 });
   */
  close(options?: { drain?: boolean; timeoutMs?: number }): Promise<void> {
    return this.scheduler.close(options);
  }

  #wrap<T>(
    id: string,
    priority: TaskPriority,
    run: (signal: AbortSignal) => Promise<T>,
    progress: Progress,
  ): TaskFunction<T> {
    return async ({ signal }) => {
      progress.started = true;
      this.#waiting[priority]--;
      this.#running++;
      this.#notify("started", { id, priority });
      try {
        const result = await run(signal);
        this.#notify("completed", { id, priority });
        return result;
      } catch (error) {
        this.#notify("failed", { id, priority, error });
        throw error;
      } finally {
        this.#running--;
        this.#notify("drained", { running: this.#running, ...this.#queues() });
      }
    };
  }

  #queues(): { interactiveWaiting: number; batchWaiting: number } {
    return { interactiveWaiting: this.#waiting.interactive, batchWaiting: this.#waiting.batch };
  }

  /** Emits for the scheduler itself: a listener that throws is reported on `error`, never thrown here. */
  #notify<K extends keyof LlmSchedulerEvents>(name: K, ...args: LlmSchedulerEvents[K]): void {
    if (this.listenerCount(name) === 0) return;
    try {
      this.emit(name, ...args);
    } catch (error) {
      this.#report(error);
    }
  }

  #report(error: unknown): void {
    if (this.listenerCount("error") === 0) return;
    try {
      this.emit("error", error);
    } catch {
      // An `error` listener that throws is dropped: reporting it again could only recurse.
    }
  }
}

import { type Clock, ErrorCode, httpStatusFor, isSchedulerError, type Scheduler } from "@llm-scheduler/core";
import { FifoLimiter } from "./fifo-limiter.js";
import {
  type Attempt,
  type AttemptFailure,
  type AttemptHooks,
  type Gateway,
  type LoadSnapshot,
  schedulerLoad,
  type WaitSink,
} from "./transport.js";
import type { GenerationTarget } from "./virtual-upstream.js";

/**
 * A status for whatever ended an attempt that did not complete: core's status for a `SchedulerError`
 * (429 for a full queue or a queue timeout), the upstream's own `status` (503 over capacity), 499 for
 * anything else (a cancelled call).
 *
 * @example
 * attemptFailureOf(new SchedulerError(ErrorCode.QUEUE_TIMEOUT, "waited too long")).status; // 429
 */
export function attemptFailureOf(error: unknown): AttemptFailure {
  if (isSchedulerError(error)) {
    return { status: httpStatusFor(error.code), retryAfterMs: error.retryAfterMs, message: error.message };
  }
  // The server's own refusal (the capacity model's 503) keeps its status; anything else was cancelled.
  const status = (error as { status?: unknown } | null)?.status;
  const message = error instanceof Error ? error.message : String(error);
  return { status: typeof status === "number" ? status : 499, message };
}

/**
 * Sends an attempt to the virtual server. The server is cancelled by the client's own signal: in these
 * runs the client giving up is the only thing that stops a running request (no run timeout is set, and
 * the scheduler is closed only once everything has settled), and reading the task's signal would make
 * the scheduler build a second signal per request.
 */
function generation(
  upstream: GenerationTarget,
  attempt: Attempt,
  hooks: AttemptHooks,
  signal = attempt.signal,
) {
  const { promptTokens, maxTokens, prefix } = attempt.request;
  return upstream.generate({
    promptTokens,
    completionTokens: maxTokens,
    signal,
    prefix,
    onFirstToken: attempt.request.kind === "chat" ? () => hooks.firstToken() : undefined,
  });
}

/** The FIFO baseline in virtual time: one queue, a concurrency limit, one server or a pool. */
export function createVirtualFifoGateway(
  limit: number,
  upstream: GenerationTarget,
  clock: Clock,
  waits: WaitSink,
): Gateway {
  const fifo = new FifoLimiter(limit);
  return {
    send(attempt, hooks) {
      const { priority } = attempt.request;
      const queuedAt = clock.now();
      waits.arrived(priority);
      fifo.enter(
        priority,
        (release) => {
          waits.queueWait(priority, clock.now() - queuedAt, true);
          generation(upstream, attempt, hooks).then(
            () => {
              release();
              waits.released(priority);
              hooks.completed();
            },
            (error: unknown) => {
              release();
              waits.released(priority);
              hooks.failed(attemptFailureOf(error));
            },
          );
        },
        (reason) => {
          waits.queueWait(priority, clock.now() - queuedAt, false);
          hooks.failed(attemptFailureOf(reason));
        },
        attempt.signal,
      );
    },
    snapshot: () => ({ ...fifo.snapshot(), limit }),
  };
}

/** llm-scheduler in virtual time: the real scheduler (on the same virtual clock) in front of the model. */
export function createVirtualScheduledGateway(
  scheduler: Scheduler,
  upstream: GenerationTarget,
  clock: Clock,
  waits: WaitSink,
): Gateway {
  return {
    send(attempt, hooks) {
      const { priority, tenant, promptTokens, maxTokens } = attempt.request;
      const queuedAt = clock.now();
      let started = false;
      // The estimate an adapter makes from the body: the prompt plus `max_tokens`; the server generates
      // exactly `max_tokens` here, so the usage reported at the end confirms it.
      const tokens = promptTokens + maxTokens;
      waits.arrived(priority);
      // A priority that may be preempted stops its generation on the task's signal too (PREEMPTED); the
      // scheduler runs it again later.
      const preemptible = scheduler.options.preemption?.maxPerTask.has(priority) === true;
      scheduler
        .run(
          (task) => {
            started = true;
            waits.queueWait(priority, task.waitMs, true);
            // A task stopped for a more urgent one lets go of its slot and waits again, so the slot meter
            // sees it back in the queue until its function runs again.
            const letGo = (): void => {
              waits.released(priority);
              if (preemptible && isSchedulerError(task.signal.reason, ErrorCode.PREEMPTED))
                waits.arrived(priority);
            };
            const signal = preemptible ? AbortSignal.any([attempt.signal, task.signal]) : attempt.signal;
            return generation(upstream, attempt, hooks, signal).then(
              (value) => {
                letGo();
                task.reportUsage({ inputTokens: promptTokens, outputTokens: maxTokens });
                return value;
              },
              (error: unknown) => {
                letGo();
                throw error;
              },
            );
          },
          { priority, tenant, tokens, id: attempt.id, signal: attempt.signal, retry: attempt.number > 0 },
        )
        .then(
          () => hooks.completed(),
          (error: unknown) => {
            if (!started) waits.queueWait(priority, clock.now() - queuedAt, false);
            hooks.failed(attemptFailureOf(error));
          },
        );
    },
    snapshot: (): LoadSnapshot => schedulerLoad(scheduler),
  };
}

import { type Clock, isSchedulerError, type Scheduler } from "@llm-scheduler/core";
import { backoffMs, headerOf, isRetryableStatus, retryAfterMs } from "./retry.js";
import type { Claim, Outcome } from "./store.js";
import type { Attempt, Execute, ExecuteResult, ItemError, ItemResult } from "./types.js";

/** What one attempt needs besides its claim. */
export interface AttemptDeps {
  readonly scheduler: Scheduler;
  readonly execute: Execute;
  readonly clock: Clock;
  readonly random: () => number;
  readonly itemTimeoutMs: number;
}

/** Scheduler errors after which the item is tried again (the upstream was never reached, or too slow). */
const RETRYABLE_CODES = ["RUN_TIMEOUT", "QUEUE_TIMEOUT", "QUEUE_FULL", "STORE_UNAVAILABLE", "PREEMPTED"];

type Failure = { readonly error: ItemError; readonly retryable: boolean; readonly attempt: Attempt };

/**
 * Runs one attempt of a claimed item through `scheduler.run()` (a retry goes to the front of its
 * tenant's queue) and turns what happened into the {@link Outcome} the store records. `stop` is the
 * batch layer's own signal (cancel, expiry, lost claim, close): then the item is released, not failed.
 *
 * @example
 * const outcome = await attempt(claim, deps, controller.signal);
 */
export async function attempt(claim: Claim, deps: AttemptDeps, stop: AbortSignal): Promise<Outcome> {
  const startedAt = deps.clock.now();
  const number = claim.attemptsMade + 1;
  let answer: ExecuteResult;
  try {
    answer = await deps.scheduler.run(
      ({ signal }) => deps.execute({ item: claim.item, batchId: claim.batchId, attempt: number, signal }),
      {
        priority: claim.priority,
        tenant: claim.tenant,
        id: `${claim.batchId}:${claim.item.index}`,
        retry: claim.attemptsMade > 0,
        timeoutMs: deps.itemTimeoutMs,
        signal: stop,
      },
    );
  } catch (error) {
    if (stop.aborted || isSchedulerError(error, "CLOSED")) return { kind: "release" };
    return next(claim, deps, failureOf(error, startedAt, deps.clock.now()));
  }
  const durationMs = deps.clock.now() - startedAt;
  if (!isAnswer(answer)) {
    const error = {
      code: "invalid_response",
      message: "`execute` must resolve to { status, body, headers? }",
    };
    return next(claim, deps, {
      error,
      retryable: false,
      attempt: { startedAt, durationMs, error: error.code },
    });
  }
  const record: Attempt = { startedAt, durationMs, status: answer.status };
  const response = {
    statusCode: answer.status,
    requestId: headerOf(answer.headers, "x-request-id") ?? `${claim.batchId}:${claim.item.index}:${number}`,
    body: answer.body,
  };
  if (answer.status >= 200 && answer.status < 300) {
    return { kind: "final", response, error: null, attempt: record };
  }
  const error = { code: `http_${answer.status}`, message: `The upstream answered ${answer.status}` };
  const failure = {
    error,
    retryable: isRetryableStatus(answer.status),
    attempt: { ...record, error: error.code },
  };
  const waitMs = retryAfterMs(answer.headers, Date.now());
  return next(claim, deps, failure, response, waitMs);
}

function isAnswer(value: unknown): value is ExecuteResult {
  const status = (value as { status?: unknown } | null)?.status;
  return typeof status === "number" && Number.isInteger(status) && status >= 100 && status <= 599;
}

function failureOf(error: unknown, startedAt: number, now: number): Failure {
  const durationMs = now - startedAt;
  if (isSchedulerError(error)) {
    const retryable = RETRYABLE_CODES.includes(error.code);
    return {
      error: { code: error.code, message: error.message },
      retryable,
      attempt: { startedAt, durationMs, error: error.code },
    };
  }
  const message = error instanceof Error ? error.message.slice(0, 500) : "The upstream call failed";
  const attempt = { startedAt, durationMs, error: "connection_error" };
  return { error: { code: "connection_error", message }, retryable: true, attempt };
}

/** A retry when allowed and attempts remain, else the final failure. */
function next(
  claim: Claim,
  deps: AttemptDeps,
  failure: Failure,
  response: ItemResult["response"] = null,
  waitMs?: number,
): Outcome {
  const made = claim.attemptsMade + 1;
  if (failure.retryable && made < claim.retry.maxAttempts) {
    const delay = backoffMs(claim.retry, made, deps.random, waitMs);
    return { kind: "retry", dueAt: deps.clock.now() + delay, attempt: failure.attempt };
  }
  return { kind: "final", response, error: failure.error, attempt: failure.attempt };
}

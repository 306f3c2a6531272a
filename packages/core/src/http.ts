import { ErrorCode, SchedulerError } from "./errors.js";
import { HeaderNames } from "./request.js";

const STATUS: Record<ErrorCode, number> = {
  QUEUE_FULL: 429,
  QUEUE_TIMEOUT: 429,
  TENANT_QUEUE_FULL: 429,
  RATE_LIMITED: 429,
  RUN_TIMEOUT: 504,
  ABORTED: 499,
  PREEMPTED: 503,
  CLOSED: 503,
  INVALID_OPTION: 400,
  INVALID_PRIORITY: 400,
  STORE_UNAVAILABLE: 503,
};

const TYPE: Record<ErrorCode, string> = {
  QUEUE_FULL: "rate_limit_exceeded",
  QUEUE_TIMEOUT: "rate_limit_exceeded",
  TENANT_QUEUE_FULL: "rate_limit_exceeded",
  RATE_LIMITED: "rate_limit_exceeded",
  RUN_TIMEOUT: "timeout",
  ABORTED: "request_aborted",
  PREEMPTED: "server_unavailable",
  CLOSED: "server_unavailable",
  INVALID_OPTION: "invalid_request_error",
  INVALID_PRIORITY: "invalid_request_error",
  STORE_UNAVAILABLE: "server_unavailable",
};

/**
 * The HTTP status every adapter answers for a scheduler error code: 429 for a full queue or a queue
 * timeout, a tenant's full queue or empty token bucket, 503 when closed, preempted or the store is down,
 * 400 for bad input, 504 for a run timeout.
 *
 * @example
 * httpStatusFor("QUEUE_FULL"); // 429
 */
export function httpStatusFor(code: ErrorCode): number {
  return STATUS[code] ?? 500;
}

/** An OpenAI-style error body, as the official clients expect it. */
export interface ErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly code: string;
    /** The request field at fault, as OpenAI's bodies have it; always `null` here. */
    readonly param: null;
  };
}

/** The status, headers and JSON body an adapter sends for a rejected request. */
export interface ErrorResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: ErrorBody;
}

const STORE_UNAVAILABLE_MESSAGE = "The scheduler's store is unavailable";

/**
 * Turns a rejection into the response all adapters send: the status from {@link httpStatusFor},
 * `Retry-After` in whole seconds (RFC 9110) plus `retry-after-ms` (read by the official openai client)
 * when a retry estimate exists, `x-preempted: 1` for a request preempted before its first byte, and an
 * OpenAI-style body. Errors that are not a {@link SchedulerError}
 * become a 500 that does not leak their message; a STORE_UNAVAILABLE body leaves out the store's
 * address and cause.
 *
 * @example
 * const { status, headers, body } = errorResponseFor(error);
 * return new Response(JSON.stringify(body), { status, headers: { ...headers, "content-type": "application/json" } });
 */
export function errorResponseFor(error: unknown): ErrorResponse {
  if (!(error instanceof SchedulerError)) {
    return {
      status: 500,
      headers: {},
      body: {
        error: { message: "Internal server error", type: "server_error", code: "INTERNAL", param: null },
      },
    };
  }
  const headers: Record<string, string> = {};
  if (error.retryAfterMs !== undefined && Number.isFinite(error.retryAfterMs)) {
    const ms = Math.max(0, Math.ceil(error.retryAfterMs));
    headers["retry-after"] = String(Math.max(1, Math.ceil(ms / 1000)));
    headers["retry-after-ms"] = String(ms);
  }
  if (error.code === ErrorCode.PREEMPTED) headers[HeaderNames.preempted] = "1";
  // A store's message names where it is and why it failed (for logs and `error` events), not for clients.
  const message = error.code === ErrorCode.STORE_UNAVAILABLE ? STORE_UNAVAILABLE_MESSAGE : error.message;
  return {
    status: httpStatusFor(error.code),
    headers,
    body: {
      error: {
        message,
        type: TYPE[error.code] ?? "server_error",
        code: error.code,
        param: null,
      },
    },
  };
}

/**
 * How a task's ending speaks of the upstream's load: `"overload"` (it could not take the request: a
 * 503, a connection error, a run timeout), `"rate-limited"` (a 429: the server's load or only the
 * tenant's own rate limit, which the caller tells apart by what other tenants get), `"ok"` (it
 * answered), or `"neutral"` (anything else, including the caller's abort and a preemption, which say
 * nothing about the upstream).
 */
export type EndingSignal = "overload" | "rate-limited" | "ok" | "neutral";

/** HTTP statuses an LLM server answers when it is over capacity. */
const OVERLOAD_STATUSES = new Set([503]);
const RATE_LIMITED = 429;
/** Error codes of a connection that failed or broke (Node's and undici's). */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

function field(value: unknown, name: string): unknown {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[name];
  } catch {
    return undefined; // a hostile getter says nothing
  }
}

/** The HTTP status an error or a response carries: `status`, `statusCode` or `response.status`. */
function statusOf(value: unknown): unknown {
  return field(value, "status") ?? field(value, "statusCode") ?? field(field(value, "response"), "status");
}

function isConnectionError(error: unknown): boolean {
  for (let depth = 0, at = error; depth < 3 && at !== undefined; depth++, at = field(at, "cause")) {
    const code = field(at, "code");
    if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
    if (at instanceof TypeError && at.message === "fetch failed") return true;
  }
  return false;
}

/**
 * Classifies how a task ended: an upstream 503 (an error with a status, or a `Response` returned
 * or thrown), a connection error and a run timeout are overload; a 429 is `"rate-limited"`; a value
 * without an error status is `"ok"`; a client abort (`ABORTED`), a preemption (`PREEMPTED`) and
 * every other failure are neutral.
 *
 * @example
 * endingSignal(false, Object.assign(new Error("busy"), { status: 503 })); // "overload"
 */
export function endingSignal(ok: boolean, value: unknown): EndingSignal {
  if (ok) return statusSignal(field(value, "status"));
  const code = field(value, "code");
  if (code === "ABORTED" || code === "PREEMPTED" || code === "CLOSED") return "neutral";
  if (code === "RUN_TIMEOUT") return "overload";
  const status = statusSignal(statusOf(value));
  if (status !== "ok") return status;
  return isConnectionError(value) ? "overload" : "neutral";
}

function statusSignal(status: unknown): EndingSignal {
  if (status === RATE_LIMITED) return "rate-limited";
  if (OVERLOAD_STATUSES.has(status as number)) return "overload";
  return typeof status === "number" && status >= 400 ? "neutral" : "ok";
}

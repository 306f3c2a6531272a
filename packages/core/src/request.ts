import { ErrorCode, SchedulerError } from "./errors.js";
import type { ResolvedOptions } from "./options.js";

/** Reads one request header by lower-case name; whatever the framework offers. */
export type HeaderReader = (name: string) => string | null | undefined;

/**
 * Header names the adapters read, and the one they send on a preemption (named so as not to shadow the web `Headers` class).
 *
 * @example
 * const id = request.headers.get(HeaderNames.requestId) ?? undefined;
 */
export const HeaderNames = {
  /** Lets a client lower (never raise) its own priority. */
  priority: "x-priority",
  /** The request id; one is made up when absent. */
  requestId: "x-request-id",
  /** Sent by the official OpenAI clients on their retries ("1", "2", …). */
  retryCount: "x-stainless-retry-count",
  /** Sent (not read): `1` on the 503 of a request that a more urgent one preempted before its first byte. */
  preempted: "x-preempted",
} as const;

/**
 * The priority a request gets when the operator configured no mapping: the default priority, or a
 * less urgent one the client asked for with `x-priority`. Priorities rank in configuration order, most
 * urgent first; a header naming a more urgent one than `base` is ignored (a client cannot raise itself),
 * and one naming no configured priority is an `INVALID_PRIORITY` error (answered with 400).
 *
 * @example
 * lowerOnlyPriority(scheduler.options, req.get("x-priority")); // "batch" if asked, else "interactive"
 */
export function lowerOnlyPriority(
  options: ResolvedOptions,
  requested: string | null | undefined,
  base?: string,
): string {
  const floor = options.priorityByName.get(base ?? options.defaultPriority);
  if (floor === undefined) {
    throw new SchedulerError(ErrorCode.INVALID_PRIORITY, `Unknown priority "${String(base)}"`);
  }
  if (requested === null || requested === undefined || requested.trim() === "") return floor.name;
  const wanted = options.priorityByName.get(requested.trim().toLowerCase());
  if (wanted === undefined) {
    const known = options.priorities.map((priority) => `"${priority.name}"`).join(", ");
    throw new SchedulerError(
      ErrorCode.INVALID_PRIORITY,
      `Unknown priority "${requested.slice(0, 64)}" in the ${HeaderNames.priority} header; expected one of ${known}`,
    );
  }
  return wanted.index >= floor.index ? wanted.name : floor.name;
}

/** True when the request is a client's retry (the official OpenAI clients send `x-stainless-retry-count`). */
export function isRetryRequest(header: HeaderReader): boolean {
  const given = header(HeaderNames.retryCount);
  if (given === null || given === undefined) return false;
  const count = Number.parseInt(given, 10);
  return Number.isInteger(count) && count >= 1;
}

let requestCounter = 0;
/** One per loaded copy of this module: ids made up here do not collide with another instance's. */
const requestPrefix = `req-${Math.floor(Math.random() * 36 ** 6).toString(36)}-`;

/**
 * The client's `x-request-id` when it is usable (at most 128 visible ASCII characters), otherwise
 * `undefined`: the adapters pass that on, and the scheduler numbers the request itself (no id is built
 * for a request that never shows one).
 */
export function givenRequestId(header: HeaderReader): string | undefined {
  const given = header(HeaderNames.requestId);
  return given !== null && given !== undefined && /^[\x21-\x7e]{1,128}$/.test(given) ? given : undefined;
}

/** The request's id: {@link givenRequestId} when there is one, otherwise a new one, unique to this instance. */
export function requestIdOf(header: HeaderReader): string {
  const given = givenRequestId(header);
  if (given !== undefined) return given;
  requestCounter = (requestCounter + 1) % Number.MAX_SAFE_INTEGER;
  return requestPrefix + requestCounter.toString(36);
}

const NO_WAIT = "queue;dur=0.0";

/** `Server-Timing` value that shows queue wait in browser tools. */
export function serverTiming(waitMs: number): string {
  return waitMs < 0.05 ? NO_WAIT : `queue;dur=${waitMs.toFixed(1)}`;
}

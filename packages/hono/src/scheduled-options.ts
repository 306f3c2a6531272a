import {
  type AdapterOptions,
  type Awaitable,
  type ResolvedAdapterOptions,
  resolveAdapterOptions,
} from "@llm-scheduler/adapter-kit";
import type { SchedulerError } from "@llm-scheduler/core";

/**
 * Returns the response for a rejected request in place of the default JSON error (`scheduled(app)`).
 * `error.code` says why and `error.retryAfterMs` when to come back.
 */
export type FetchRejectionHandler = (error: SchedulerError, request: Request) => Awaitable<Response>;

/**
 * Options of `scheduled(app)`: those of `schedulerMiddleware()`, except that the mapping functions
 * (`priority`, `tenant`, `id`, `cost`, `tokens`) and `onRejected` receive the web `Request`, since
 * they run before Hono makes its context.
 *
 * @example
 * const options: ScheduledOptions = {
 *   scheduler,
 *   tenant: (request) => teams.get(request.headers.get("x-api-key") ?? "")?.tenant ?? "unknown-key",
 * };
 */
export interface ScheduledOptions extends AdapterOptions<Request> {
  /**
   * Builds the response of a rejected request.
   * @default a JSON body `{ error: { message, type, code, param } }` with core's status, `Retry-After` and
   * `retry-after-ms`
   */
  readonly onRejected?: FetchRejectionHandler;
}

/**
 * Validates the options of `scheduled(app)` up front (throws `INVALID_OPTION`) and fills in the defaults.
 *
 * @example
 * const config = resolveScheduledOptions({ scheduler });
 */
export function resolveScheduledOptions(
  options?: ScheduledOptions,
): ResolvedAdapterOptions<Request, FetchRejectionHandler> {
  return resolveAdapterOptions<Request, FetchRejectionHandler>(options, jsonBodyOf);
}

/**
 * A JSON request's body for the token estimate, read from a copy so that the app still gets the whole
 * body; undefined for other requests or a body that is not JSON. Runs only while the scheduler counts
 * tokens.
 */
function jsonBodyOf(request: Request): Promise<unknown> | undefined {
  const { method } = request;
  if (method === "GET" || method === "HEAD") return undefined;
  const type = request.headers.get("content-type");
  if (type === null || !type.includes("json") || request.body === null) return undefined;
  return request
    .clone()
    .json()
    .catch(() => undefined);
}

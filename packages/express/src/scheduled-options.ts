import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AdapterOptions,
  type Awaitable,
  type ResolvedAdapterOptions,
  resolveAdapterOptions,
} from "@llm-scheduler/adapter-kit";
import type { SchedulerError } from "@llm-scheduler/core";

/**
 * Answers a rejected request in place of the default JSON error (`scheduled(app)`), on Node's `req` and
 * `res`: Express has not seen the request yet. `error.code` says why and `error.retryAfterMs` when to
 * come back. A thrown error or rejected promise is answered with a bare 500.
 */
export type NodeRejectionHandler = (
  error: SchedulerError,
  req: IncomingMessage,
  res: ServerResponse,
) => Awaitable<void>;

/**
 * Options of `scheduled(app)`: those of `schedulerMiddleware()`, except that the mapping functions
 * (`priority`, `tenant`, `id`, `cost`, `tokens`) and `onRejected` receive Node's `req` (and `res`),
 * since they run before Express has routed the request.
 *
 * @example
 * const options: ScheduledOptions = {
 *   scheduler,
 *   tenant: (req) => teams.get(String(req.headers["x-api-key"] ?? ""))?.tenant ?? "unknown-key",
 * };
 */
export interface ScheduledOptions extends AdapterOptions<IncomingMessage> {
  /**
   * Sends the response of a rejected request.
   * @default a JSON body `{ error: { message, type, code, param } }` with core's status, `Retry-After` and
   * `retry-after-ms`
   */
  readonly onRejected?: NodeRejectionHandler;
}

/**
 * Validates the options of `scheduled(app)` up front (throws `INVALID_OPTION`) and fills in the defaults.
 * No body parser has run, so the token estimate comes from the declared `content-length` and
 * `defaultMaxTokens`.
 *
 * @example
 * const config = resolveScheduledOptions({ scheduler });
 */
export function resolveScheduledOptions(
  options?: ScheduledOptions,
): ResolvedAdapterOptions<IncomingMessage, NodeRejectionHandler> {
  return resolveAdapterOptions<IncomingMessage, NodeRejectionHandler>(options, () => undefined);
}

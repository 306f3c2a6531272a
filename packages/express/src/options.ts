import {
  type AdapterOptions,
  type Awaitable,
  type ResolvedAdapterOptions,
  resolveAdapterOptions,
} from "@llm-scheduler/adapter-kit";
import type { SchedulerError } from "@llm-scheduler/core";
import type { NextFunction, Request, Response } from "express";

/**
 * Answers a rejected request in place of the default JSON error. `error.code` says why (`QUEUE_FULL`,
 * `QUEUE_TIMEOUT`, `CLOSED`, `INVALID_PRIORITY`, …) and `error.retryAfterMs` when to come back. Call
 * `next(error)` to hand it to your error handler instead; a thrown error or rejected promise goes there too.
 */
export type ExpressRejectionHandler = (
  error: SchedulerError,
  req: Request,
  res: Response,
  next: NextFunction,
) => Awaitable<void>;

/**
 * Options of `schedulerMiddleware()` for Express. The mapping functions (`priority`, `tenant`, `id`,
 * `cost`) receive Express's `req`, may be async, and may throw: a `SchedulerError` is answered as a
 * rejection, anything else goes to `next(error)`.
 *
 * @example
 * const options: ExpressSchedulerOptions = {
 *   scheduler,
 *   // `teams`: the keys you issued -> { tenant, priority }; never the raw key as the tenant
 *   priority: (req) => teams.get(req.get("x-api-key") ?? "")?.priority ?? "batch",
 *   tenant: (req) => teams.get(req.get("x-api-key") ?? "")?.tenant ?? "unknown-key",
 * };
 */
export interface ExpressSchedulerOptions extends AdapterOptions<Request> {
  /**
   * Sends the response of a rejected request.
   * @default a JSON body `{ error: { message, type, code, param } }` with core's status, `Retry-After` and
   * `retry-after-ms`
   */
  readonly onRejected?: ExpressRejectionHandler;
}

/**
 * Validates the options up front (throws `INVALID_OPTION`, naming an unknown key and the nearest known
 * one) and fills in the defaults.
 *
 * @example
 * const config = resolveExpressOptions({ scheduler, timeoutMs: 60_000 });
 */
export function resolveExpressOptions(
  options?: ExpressSchedulerOptions,
): ResolvedAdapterOptions<Request, ExpressRejectionHandler> {
  // The token estimate reads the body a JSON parser (`express.json()`) placed before this one left.
  return resolveAdapterOptions<Request, ExpressRejectionHandler>(options, (req) => req.body as unknown);
}

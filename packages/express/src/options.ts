import type { IncomingMessage, ServerResponse } from "node:http";
import { adapterResolver, type RejectionHandler, type ShapeOptions } from "@llm-scheduler/adapter-kit";
import type { NextFunction, Request, Response } from "express";

/**
 * Answers a rejected request in place of the default JSON error ({@link RejectionHandler}). Call
 * `next(error)` to hand it to your error handler instead; a thrown error or rejected promise goes there too.
 */
export type ExpressRejectionHandler = RejectionHandler<[req: Request, res: Response, next: NextFunction]>;

/**
 * Answers a rejected request in place of the default JSON error (`scheduled(app)`), on Node's `req` and
 * `res`: Express has not seen the request yet. A thrown error or rejected promise is answered with a
 * bare 500.
 */
export type NodeRejectionHandler = RejectionHandler<[req: IncomingMessage, res: ServerResponse]>;

/**
 * The two shapes of the adapter and what their callbacks receive: `schedulerMiddleware()` runs as a
 * route's middleware, on Express's `req`; `scheduled(app)` runs before Express routes the request, on
 * Node's `req` and `res`.
 */
type ExpressShapes = {
  readonly middleware: { readonly request: Request; readonly onRejected: ExpressRejectionHandler };
  readonly scheduled: { readonly request: IncomingMessage; readonly onRejected: NodeRejectionHandler };
};

/** A shape of the adapter: `"middleware"` or `"scheduled"`. */
export type ExpressShape = keyof ExpressShapes;

/**
 * Options of the Express adapter, one set for both shapes. The mapping functions (`priority`, `tenant`,
 * `id`, `cost`, `tokens`) receive the shape's request (Express's `req` for `schedulerMiddleware()`,
 * Node's for `scheduled(app)`), may be async, and may throw: a `SchedulerError` is answered as a
 * rejection; anything else goes to `next(error)` (middleware) or is a bare 500 (`scheduled`).
 *
 * @example
 * const options: ExpressOptions = {
 *   scheduler,
 *   // `teams`: the keys you issued -> { tenant, priority }; never the raw key as the tenant
 *   priority: (req) => teams.get(req.get("x-api-key") ?? "")?.priority ?? "batch",
 *   tenant: (req) => teams.get(req.get("x-api-key") ?? "")?.tenant ?? "unknown-key",
 * };
 */
export type ExpressOptions<S extends ExpressShape = "middleware"> = ShapeOptions<ExpressShapes, S>;

/** Options of `schedulerMiddleware()` (the adapter's options on Express's `req`). */
export type ExpressSchedulerOptions = ExpressOptions<"middleware">;

/** Options of `scheduled(app)` (the adapter's options on Node's `req`). */
export type ScheduledOptions = ExpressOptions<"scheduled">;

/**
 * The resolver of both shapes. The token estimate of the middleware reads what a JSON parser
 * (`express.json()`) placed before it left; before Express no parser has run, so the declared
 * `content-length` and `defaultMaxTokens` make the estimate.
 */
export const resolveExpressOptions = adapterResolver<ExpressShapes>({
  middleware: (req) => req.body,
  scheduled: () => undefined,
});

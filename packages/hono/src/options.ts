import { adapterResolver, type RejectionHandler, type ShapeOptions } from "@llm-scheduler/adapter-kit";
import type { Context } from "hono";

/** Where `@hono/node-server` keeps Node's parsed request headers (`c.env.incoming.headers`). */
type NodeEnv = { readonly incoming?: { readonly headers?: Readonly<Record<string, unknown>> } } | null;

/**
 * Returns the response for a rejected request in place of the default JSON error
 * ({@link RejectionHandler}). Throw to use the app's `onError`.
 */
export type HonoRejectionHandler = RejectionHandler<[c: Context], Response>;

/**
 * Returns the response for a rejected request in place of the default JSON error (`scheduled(app)`,
 * {@link RejectionHandler}).
 */
export type FetchRejectionHandler = RejectionHandler<[request: Request], Response>;

/**
 * The two shapes of the adapter and what their callbacks receive: `schedulerMiddleware()` runs as a
 * route's middleware, on Hono's context `c`; `scheduled(app)` runs before Hono makes its context, on the
 * web `Request`.
 */
type HonoShapes = {
  readonly middleware: { readonly request: Context; readonly onRejected: HonoRejectionHandler };
  readonly scheduled: { readonly request: Request; readonly onRejected: FetchRejectionHandler };
};

/** A shape of the adapter: `"middleware"` or `"scheduled"`. */
export type HonoShape = keyof HonoShapes;

/**
 * Options of the Hono adapter, one set for both shapes. The mapping functions (`priority`, `tenant`,
 * `id`, `cost`, `tokens`) receive the shape's input (the context `c` for `schedulerMiddleware()`, the
 * web `Request` for `scheduled(app)`), may be async, and may throw: a `SchedulerError` is answered as a
 * rejection, anything else is rethrown to the app's `onError`.
 *
 * @example
 * const options: HonoOptions = {
 *   scheduler,
 *   // `teams`: the keys you issued -> { tenant, priority }; never the raw key as the tenant
 *   priority: (c) => teams.get(c.req.header("x-api-key") ?? "")?.priority ?? "batch",
 *   tenant: (c) => teams.get(c.req.header("x-api-key") ?? "")?.tenant ?? "unknown-key",
 * };
 */
export type HonoOptions<S extends HonoShape = "middleware"> = ShapeOptions<HonoShapes, S>;

/** Options of `schedulerMiddleware()` (the adapter's options on Hono's context). */
export type HonoSchedulerOptions = HonoOptions<"middleware">;

/** Options of `scheduled(app)` (the adapter's options on the web `Request`). */
export type ScheduledOptions = HonoOptions<"scheduled">;

/**
 * A JSON request's body for the token estimate, read from a copy so that the app still gets the whole
 * body (`c.req.json()` or `request.body`); undefined for other requests or a body that is not JSON.
 * Runs only while the scheduler counts tokens.
 */
function jsonBodyOf(request: Request, contentType: unknown): Promise<unknown> | undefined {
  if (typeof contentType !== "string" || !contentType.includes("json") || request.body === null)
    return undefined;
  return request
    .clone()
    .json()
    .catch(() => undefined);
}

/** GET and HEAD requests have no body: not even their headers are read. */
const bodiless = ({ method }: { readonly method: string }) => method === "GET" || method === "HEAD";

/** The resolver of both shapes; each reads a JSON body for the token estimate. */
export const resolveHonoOptions = adapterResolver<HonoShapes>({
  middleware(c) {
    if (bodiless(c.req)) return undefined;
    // On @hono/node-server, read Node's parsed headers first: touching `c.req.raw.headers` or `.body`
    // turns its light request into a full web Request, which most requests never need.
    const nodeHeaders = (c.env as NodeEnv | undefined)?.incoming?.headers;
    const type =
      nodeHeaders === undefined ? c.req.raw.headers.get("content-type") : nodeHeaders["content-type"];
    return jsonBodyOf(c.req.raw, type);
  },
  scheduled: (request) =>
    bodiless(request) ? undefined : jsonBodyOf(request, request.headers.get("content-type")),
});

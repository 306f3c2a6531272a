import {
  type AdapterOptions,
  type Awaitable,
  type ResolvedAdapterOptions,
  resolveAdapterOptions,
} from "@llm-scheduler/adapter-kit";
import type { SchedulerError } from "@llm-scheduler/core";
import type { Context } from "hono";

/** Where `@hono/node-server` keeps Node's parsed request headers (`c.env.incoming.headers`). */
type NodeEnv = { readonly incoming?: { readonly headers?: Readonly<Record<string, unknown>> } } | null;

/**
 * Returns the response for a rejected request in place of the default JSON error. `error.code` says why
 * (`QUEUE_FULL`, `QUEUE_TIMEOUT`, `CLOSED`, `INVALID_PRIORITY`, …) and `error.retryAfterMs` when to come
 * back. Throw to use the app's `onError`.
 */
export type HonoRejectionHandler = (error: SchedulerError, c: Context) => Awaitable<Response>;

/**
 * Returns the response for a rejected request in place of the default JSON error (`scheduled(app)`).
 * `error.code` says why and `error.retryAfterMs` when to come back.
 */
export type FetchRejectionHandler = (error: SchedulerError, request: Request) => Awaitable<Response>;

/**
 * The two shapes of the adapter and what their callbacks receive: `schedulerMiddleware()` runs as a
 * route's middleware, on Hono's context `c`; `scheduled(app)` runs before Hono makes its context, on the
 * web `Request`.
 */
export interface HonoShapes {
  readonly middleware: { readonly on: Context; readonly onRejected: HonoRejectionHandler };
  readonly scheduled: { readonly on: Request; readonly onRejected: FetchRejectionHandler };
}

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
export type HonoOptions<S extends HonoShape = "middleware"> = AdapterOptions<
  HonoShapes[S]["on"],
  HonoShapes[S]["onRejected"]
>;

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

/** The token estimate's body per shape. */
const BODY_OF: { readonly [S in HonoShape]: (on: HonoShapes[S]["on"]) => Promise<unknown> | undefined } = {
  middleware(c) {
    const { method } = c.req;
    if (method === "GET" || method === "HEAD") return undefined;
    // On @hono/node-server, read Node's parsed headers first: touching `c.req.raw.headers` or `.body`
    // turns its light request into a full web Request, which most requests never need.
    const nodeHeaders = (c.env as NodeEnv | undefined)?.incoming?.headers;
    const type =
      nodeHeaders === undefined ? c.req.raw.headers.get("content-type") : nodeHeaders["content-type"];
    return typeof type === "string" && type.includes("json") ? jsonBodyOf(c.req.raw, type) : undefined;
  },
  scheduled(request) {
    const { method } = request;
    if (method === "GET" || method === "HEAD") return undefined;
    return jsonBodyOf(request, request.headers.get("content-type"));
  },
};

/**
 * Validates the options of either shape up front (throws `INVALID_OPTION`, naming an unknown key and the
 * nearest known one) and fills in the defaults.
 *
 * @example
 * const config = resolveHonoOptions({ scheduler, timeoutMs: 60_000 }); // schedulerMiddleware()
 * const early = resolveHonoOptions({ scheduler }, "scheduled"); // scheduled(app)
 */
export function resolveHonoOptions<S extends HonoShape = "middleware">(
  options?: HonoOptions<S>,
  shape: S = "middleware" as S,
): ResolvedAdapterOptions<HonoShapes[S]["on"], HonoShapes[S]["onRejected"]> {
  return resolveAdapterOptions<HonoShapes[S]["on"], HonoShapes[S]["onRejected"]>(
    options,
    BODY_OF[shape] as (on: HonoShapes[S]["on"]) => Promise<unknown> | undefined,
  );
}

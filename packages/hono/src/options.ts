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
 * Options of `schedulerMiddleware()` for Hono. The mapping functions (`priority`, `tenant`, `id`, `cost`)
 * receive the Hono context `c`, may be async, and may throw: a `SchedulerError` is answered as a
 * rejection, anything else is rethrown to the app's `onError`.
 *
 * @example
 * const options: HonoSchedulerOptions = {
 *   scheduler,
 *   // `teams`: the keys you issued -> { tenant, priority }; never the raw key as the tenant
 *   priority: (c) => teams.get(c.req.header("x-api-key") ?? "")?.priority ?? "batch",
 *   tenant: (c) => teams.get(c.req.header("x-api-key") ?? "")?.tenant ?? "unknown-key",
 * };
 */
export interface HonoSchedulerOptions extends AdapterOptions<Context> {
  /**
   * Builds the response of a rejected request.
   * @default a JSON body `{ error: { message, type, code, param } }` with core's status, `Retry-After` and
   * `retry-after-ms`
   */
  readonly onRejected?: HonoRejectionHandler;
}

/**
 * Validates the options up front (throws `INVALID_OPTION`, naming an unknown key and the nearest known
 * one) and fills in the defaults.
 *
 * @example
 * const config = resolveHonoOptions({ scheduler, timeoutMs: 60_000 });
 */
export function resolveHonoOptions(
  options?: HonoSchedulerOptions,
): ResolvedAdapterOptions<Context, HonoRejectionHandler> {
  return resolveAdapterOptions<Context, HonoRejectionHandler>(options, jsonBodyOf);
}

/**
 * A JSON request's body for the token estimate, read from a copy so that the handler still gets the
 * whole body (`c.req.json()` or `c.req.raw.body`); undefined for other requests or a body that is not JSON.
 */
function jsonBodyOf(c: Context): Promise<unknown> | undefined {
  const { method } = c.req;
  if (method === "GET" || method === "HEAD") return undefined;
  // On @hono/node-server, read Node's parsed headers first: touching `c.req.raw.headers` or `.body`
  // turns its light request into a full web Request, which most requests never need.
  const nodeHeaders = (c.env as NodeEnv | undefined)?.incoming?.headers;
  const type =
    nodeHeaders === undefined ? c.req.raw.headers.get("content-type") : nodeHeaders["content-type"];
  if (typeof type !== "string" || !type.includes("json")) return undefined;
  const request = c.req.raw;
  if (request.body === null) return undefined;
  return request
    .clone()
    .json()
    .catch(() => undefined);
}

import { BatchCache } from "./batch-cache.js";
import { failedItems } from "./batches.js";
import { APP_JS } from "./client/app-js.js";
import { CHARTS_JS } from "./client/charts-js.js";
import { FAVICON_SVG, STYLE_CSS } from "./client/style-css.js";
import { mayControl, postBatchAction, postLimits } from "./controls.js";
import { type DashboardOptions, type ResolvedDashboardOptions, resolveDashboardOptions } from "./options.js";
import { pageHtml } from "./page.js";
import { json, openaiError, SAFE_HEADERS } from "./respond.js";
import { buildSnapshot } from "./snapshot.js";
import { Streams } from "./streams.js";
import { WaitFeed } from "./wait-feed.js";
import { WaitWindow } from "./wait-window.js";

/** A web-standard handler (Request in, Response out) with a `close()` that ends its streams and listener. */
export interface Dashboard {
  (request: Request): Promise<Response>;
  /** Ends every live stream and stops listening to the scheduler. */
  close(): void;
  /** Where it is mounted, without a trailing slash. */
  readonly path: string;
}

type Route = (request: Request, match: RegExpExecArray) => Promise<Response> | Response;

interface RouteEntry {
  readonly method: "GET" | "POST";
  readonly pattern: RegExp;
  readonly handle: Route;
}

function asset(body: string, type: string): Response {
  return new Response(body, { headers: { ...SAFE_HEADERS, "content-type": `${type}; charset=utf-8` } });
}

/** Failed items of a batch, and the two batch controls. */
function batchRoutes(
  options: ResolvedDashboardOptions,
  cache: BatchCache | undefined,
  guarded: (handle: Route) => Route,
): RouteEntry[] {
  return [
    {
      method: "GET",
      pattern: /^\/api\/batches\/([^/]+)\/failed$/,
      handle: async (_r, m) => {
        if (options.batches === undefined) return openaiError(404, notFound());
        const id = batchId(m[1]);
        if (id === undefined) return badId();
        const items = await failedItems(options.batches, id).catch(() => []);
        return json(200, { data: items });
      },
    },
    {
      method: "POST",
      pattern: /^\/api\/batches\/([^/]+)\/(cancel|retry)$/,
      handle: guarded(async (r, m) => {
        const id = batchId(m[1]);
        if (id === undefined) return badId();
        const response = await postBatchAction(options, r, id, m[2] as "cancel" | "retry");
        cache?.invalidate();
        return response;
      }),
    },
  ];
}

type Sources = Parameters<typeof buildSnapshot>[1];

function routes(options: ResolvedDashboardOptions, sources: Sources, streams: Streams): RouteEntry[] {
  const snapshot = async (request: Request) =>
    buildSnapshot(options, sources, await mayControl(options, request));
  const guarded = (handle: Route): Route => {
    return async (request, match) => {
      if (await mayControl(options, request)) return handle(request, match);
      const message = "The dashboard is read-only for this request";
      return openaiError(403, { message, type: "permission_error", code: "read_only" });
    };
  };
  const page = pageHtml(options.path);
  return [
    { method: "GET", pattern: /^\/?$/, handle: () => pageResponse(page) },
    { method: "GET", pattern: /^\/app\.js$/, handle: () => asset(CHARTS_JS + APP_JS, "text/javascript") },
    { method: "GET", pattern: /^\/app\.css$/, handle: () => asset(STYLE_CSS, "text/css") },
    { method: "GET", pattern: /^\/favicon\.svg$/, handle: () => asset(FAVICON_SVG, "image/svg+xml") },
    { method: "GET", pattern: /^\/api\/snapshot$/, handle: async (r) => json(200, await snapshot(r)) },
    {
      method: "GET",
      pattern: /^\/api\/events$/,
      handle: async (r) => {
        const controls = await mayControl(options, r);
        return streams.open(r, () => buildSnapshot(options, sources, controls));
      },
    },
    { method: "POST", pattern: /^\/api\/limits$/, handle: guarded((r) => postLimits(options, r)) },
    ...batchRoutes(options, sources.batches, guarded),
  ];
}

function pageResponse(page: string): Response {
  const policy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  return new Response(page, {
    headers: {
      ...SAFE_HEADERS,
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": policy,
    },
  });
}

function notFound() {
  return { message: "Not found", type: "invalid_request_error", code: "not_found" };
}

/** The path below the mount point, or `undefined` when the request is not for the dashboard. */
function relativePath(url: URL, mount: string): string | undefined {
  if (url.pathname !== mount && !url.pathname.startsWith(`${mount}/`)) return undefined;
  return url.pathname.slice(mount.length);
}

/** A batch id from the URL, decoded; `undefined` when malformed or longer than 200 characters. */
function batchId(raw: string | undefined): string | undefined {
  try {
    const id = decodeURIComponent(raw ?? "");
    return id.length > 0 && id.length <= 200 ? id : undefined;
  } catch {
    return undefined;
  }
}

function badId(): Response {
  const message = "The batch id in the path is malformed";
  return openaiError(400, { message, type: "invalid_request_error", code: "invalid_value", param: "id" });
}

async function dispatch(table: readonly RouteEntry[], mount: string, request: Request): Promise<Response> {
  const rest = relativePath(new URL(request.url), mount);
  if (rest === undefined) return openaiError(404, notFound());
  const matching = table.filter((entry) => entry.pattern.test(rest));
  if (matching.length === 0) return openaiError(404, notFound());
  const entry = matching.find((candidate) => candidate.method === request.method);
  if (entry === undefined) {
    const allow = matching.map((candidate) => candidate.method).join(", ");
    const message = `Use ${allow} here`;
    return openaiError(
      405,
      { message, type: "invalid_request_error", code: "method_not_allowed" },
      { allow },
    );
  }
  try {
    return await entry.handle(request, entry.pattern.exec(rest)!);
  } catch {
    return openaiError(500, { message: "Internal server error", type: "server_error", code: "internal" });
  }
}

/**
 * A live dashboard for a scheduler, as a web-standard handler: the page at `path`, a JSON snapshot at
 * `path/api/snapshot`, Server-Sent Events at `path/api/events`, and, for requests `authorize` accepts,
 * POST controls. It reads the scheduler through `on("started")`, `metrics()` and `options` only, and
 * listens only while someone watches (a stream is open, or a request came within twice `waitWindowMs`).
 *
 * @example
 * const dashboard = createDashboard({ scheduler, authorize: (req) => req.headers.get("x-admin") === secret });
 * app.all("/dashboard/*", (c) => dashboard(c.req.raw)); // Hono
 */
export function createDashboard(options: DashboardOptions): Dashboard {
  const resolved = resolveDashboardOptions(options);
  const { scheduler } = resolved;
  const clock = scheduler.options.clock;
  const window = new WaitWindow(resolved.waitWindowMs);
  const streams = new Streams(clock, resolved.intervalMs, resolved.maxStreams);
  const feed = new WaitFeed(scheduler, window, clock, 2 * resolved.waitWindowMs, () => streams.size);
  const batches =
    resolved.batches === undefined ? undefined : new BatchCache(resolved.batches, clock, resolved.intervalMs);
  const table = routes(resolved, { window, batches }, streams);
  const handler = (request: Request) => {
    feed.touch();
    return dispatch(table, resolved.path, request);
  };
  return Object.assign(handler, {
    path: resolved.path,
    close(): void {
      feed.close();
      batches?.close();
      streams.closeAll();
    },
  });
}

import type { BatchCache } from "./batch-cache.js";
import { failedItems } from "./batches.js";
import { APP_JS } from "./client/app-js.js";
import { CHARTS_JS } from "./client/charts-js.js";
import { LIVE_JS } from "./client/live-js.js";
import { POOL_JS } from "./client/pool-js.js";
import { FAVICON_SVG, STYLE_CSS } from "./client/style-css.js";
import { postBatchAction, postLimits } from "./controls.js";
import type { SnapshotHistory } from "./history.js";
import type { ResolvedDashboardOptions } from "./options.js";
import { pageHtml } from "./page.js";
import { json, openaiError, SAFE_HEADERS } from "./respond.js";
import { buildSnapshot, present, type SnapshotSources } from "./snapshot.js";
import type { Streams } from "./streams.js";
import { notAuthorized, type Viewer, viewerOf } from "./viewer.js";

type Route = (request: Request, match: RegExpExecArray) => Promise<Response> | Response;

/** One route: method, path pattern below the mount point, handler. */
export interface RouteEntry {
  readonly method: "GET" | "POST";
  readonly pattern: RegExp;
  readonly handle: Route;
}

/** Everything the routes read: the options, the snapshot sources, the history and the streams. */
export interface RouteContext {
  readonly options: ResolvedDashboardOptions;
  readonly sources: SnapshotSources;
  readonly history: SnapshotHistory | undefined;
  readonly streams: Streams;
}

function asset(body: string, type: string): Response {
  return new Response(body, { headers: { ...SAFE_HEADERS, "content-type": `${type}; charset=utf-8` } });
}

const LIVE_DATA = "Live data";

/** A route that only viewers who may see something (or everything, with `full`) reach. */
function seeing(
  context: RouteContext,
  full: boolean,
  what: string,
  handle: (viewer: Viewer, request: Request, match: RegExpExecArray) => Promise<Response> | Response,
): Route {
  return async (request, match) => {
    const viewer = await viewerOf(context.options, request);
    if (viewer.view === "none" || (full && viewer.view !== "full")) return notAuthorized(what);
    return handle(viewer, request, match);
  };
}

/** A control: only for requests `authorize` accepts. */
function guarded(context: RouteContext, handle: Route): Route {
  return async (request, match) => {
    if ((await viewerOf(context.options, request)).controls) return handle(request, match);
    const message = "The dashboard is read-only for this request";
    return openaiError(403, { message, type: "permission_error", code: "read_only" });
  };
}

function historyFor(context: RouteContext, viewer: Viewer) {
  const kept = context.history?.list() ?? [];
  return { data: kept.map((snapshot) => present(snapshot, viewer, null)) };
}

/** Failed items of a batch, and the two batch controls. */
function batchRoutes(context: RouteContext, cache: BatchCache | undefined): RouteEntry[] {
  const { options } = context;
  return [
    {
      method: "GET",
      pattern: /^\/api\/batches\/([^/]+)\/failed$/,
      handle: seeing(context, true, "Batch details", async (_v, _r, m) => {
        if (options.batches === undefined) return openaiError(404, notFound());
        const id = batchId(m[1]);
        if (id === undefined) return badId();
        const items = await failedItems(options.batches, id).catch(() => []);
        return json(200, { data: items });
      }),
    },
    {
      method: "POST",
      pattern: /^\/api\/batches\/([^/]+)\/(cancel|retry)$/,
      handle: guarded(context, async (r, m) => {
        const id = batchId(m[1]);
        if (id === undefined) return badId();
        const response = await postBatchAction(options, r, id, m[2] as "cancel" | "retry");
        cache?.invalidate();
        return response;
      }),
    },
  ];
}

/**
 * The dashboard's routes: the page and its assets for anyone (they hold no data), the feed for viewers
 * that `access` or `authorize` lets see, the controls for operators.
 *
 * @example
 * const table = routes({ options, sources, history, streams });
 */
export function routes(context: RouteContext): RouteEntry[] {
  const { options, sources, streams } = context;
  const page = pageHtml(options.path);
  return [
    { method: "GET", pattern: /^\/?$/, handle: () => pageResponse(page) },
    {
      method: "GET",
      pattern: /^\/app\.js$/,
      handle: () => asset(CHARTS_JS + LIVE_JS + POOL_JS + APP_JS, "text/javascript"),
    },
    { method: "GET", pattern: /^\/app\.css$/, handle: () => asset(STYLE_CSS, "text/css") },
    { method: "GET", pattern: /^\/favicon\.svg$/, handle: () => asset(FAVICON_SVG, "image/svg+xml") },
    {
      method: "GET",
      pattern: /^\/api\/snapshot$/,
      handle: seeing(context, false, LIVE_DATA, async (viewer) =>
        json(200, await buildSnapshot(options, sources, viewer)),
      ),
    },
    {
      method: "GET",
      pattern: /^\/api\/history$/,
      handle: seeing(context, false, LIVE_DATA, (viewer) => json(200, historyFor(context, viewer))),
    },
    {
      method: "GET",
      pattern: /^\/api\/events$/,
      handle: seeing(context, false, LIVE_DATA, (viewer, r) =>
        streams.open(r, () => buildSnapshot(options, sources, viewer), {
          public: !viewer.controls,
          ...(context.history === undefined ? {} : { history: () => historyFor(context, viewer) }),
        }),
      ),
    },
    { method: "POST", pattern: /^\/api\/limits$/, handle: guarded(context, (r) => postLimits(options, r)) },
    ...batchRoutes(context, sources.batches),
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

/** An OpenAI-style "not found" body. */
export function notFound() {
  return { message: "Not found", type: "invalid_request_error", code: "not_found" };
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

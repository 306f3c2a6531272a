import { BatchCache } from "./batch-cache.js";
import { SnapshotHistory } from "./history.js";
import { type DashboardOptions, resolveDashboardOptions } from "./options.js";
import { openaiError } from "./respond.js";
import { notFound, type RouteEntry, routes } from "./routes.js";
import { readSnapshot } from "./snapshot.js";
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

/** The path below the mount point, or `undefined` when the request is not for the dashboard. */
function relativePath(url: URL, mount: string): string | undefined {
  if (url.pathname !== mount && !url.pathname.startsWith(`${mount}/`)) return undefined;
  return url.pathname.slice(mount.length);
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
 * `path/api/snapshot`, the last minutes at `path/api/history`, Server-Sent Events at `path/api/events`,
 * and, for requests `authorize` accepts, tenants, batches and POST controls. Closed by default: without
 * `authorize`, `access` must say what anyone may see (`"aggregate"`: totals only, or `"open"`), or it
 * throws `INVALID_OPTION`. It reads the scheduler through `on("started")`, `metrics()` and `options`
 * only; it listens to `started` only while someone watches, and samples `metrics()` once per
 * `intervalMs` for the history (`historyMs: 0` turns that off).
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
  const { intervalMs, maxStreams, maxPublicStreams } = resolved;
  const streams = new Streams(clock, intervalMs, maxStreams, maxPublicStreams);
  const feed = new WaitFeed(scheduler, window, clock, 2 * resolved.waitWindowMs, () => streams.size);
  const batches =
    resolved.batches === undefined ? undefined : new BatchCache(resolved.batches, clock, intervalMs);
  const sources = { window, recording: () => feed.listening, batches };
  const history =
    resolved.historyMs === 0
      ? undefined
      : new SnapshotHistory(clock, intervalMs, resolved.historyMs, () =>
          readSnapshot(resolved, window, feed.listening),
        );
  const table = routes({ options: resolved, sources, history, streams });
  const handler = (request: Request) => {
    feed.touch();
    return dispatch(table, resolved.path, request);
  };
  return Object.assign(handler, {
    path: resolved.path,
    close(): void {
      feed.close();
      history?.close();
      batches?.close();
      streams.closeAll();
    },
  });
}

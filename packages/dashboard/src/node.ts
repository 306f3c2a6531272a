/**
 * `@llm-scheduler/dashboard/node`: mounts the web-standard dashboard handler on Node's `http` objects,
 * which Express and Koa both expose; no framework is imported.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** A web-standard handler, such as the one `createDashboard()` returns. */
export type FetchHandler = ((request: Request) => Promise<Response>) & { readonly path?: string };

function toRequest(req: IncomingMessage & { originalUrl?: string }, signal: AbortSignal): Request {
  const host = req.headers.host ?? "localhost";
  const url = new URL(req.originalUrl ?? req.url ?? "/", `http://${host}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const parsed = (req as { body?: unknown }).body;
  if (hasBody && req.readableEnded && parsed !== undefined) {
    // A body parser (express.json()) ran first: hand the handler what it parsed.
    const text = typeof parsed === "string" ? parsed : JSON.stringify(parsed);
    return new Request(url, { method: req.method, headers, body: text, signal });
  }
  const body = hasBody
    ? new ReadableStream<Uint8Array>({
        async start(controller) {
          for await (const chunk of req) controller.enqueue(chunk as Uint8Array);
          controller.close();
        },
      })
    : null;
  return new Request(url, { method: req.method, headers, body, signal, duplex: "half" } as RequestInit);
}

/** Copies a Response to `res`, waiting for `drain` when the socket is full; stops when the client leaves. */
async function send(response: Response, res: ServerResponse): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) res.setHeader(name, value);
  res.flushHeaders();
  if (response.body === null) return void res.end();
  const reader = response.body.getReader();
  res.once("close", () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await new Promise((resume) => res.once("drain", resume));
    }
  } catch {
    // the client went away mid-stream
  }
  res.end();
}

/**
 * Wraps the dashboard for Node's `http` server and Express (`next` passes through requests outside its
 * path; Express's mount prefix is kept through `req.originalUrl`).
 *
 * @example
 * app.use(toNodeHandler(createDashboard({ scheduler }))); // Express, serves /dashboard
 */
export function toNodeHandler(handler: FetchHandler) {
  return function dashboardNodeHandler(
    req: IncomingMessage & { originalUrl?: string },
    res: ServerResponse,
    next?: (error?: unknown) => void,
  ): void {
    const path = new URL(req.originalUrl ?? req.url ?? "/", "http://x").pathname;
    const mount = handler.path;
    if (next !== undefined && mount !== undefined && path !== mount && !path.startsWith(`${mount}/`)) {
      next();
      return;
    }
    const controller = new AbortController();
    res.once("close", () => controller.abort());
    handler(toRequest(req, controller.signal))
      .then((response) => send(response, res))
      .catch((error: unknown) => (next === undefined ? res.destroy() : next(error)));
  };
}

/** The part of a Koa context the helper uses. */
export interface KoaContextLike {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly path: string;
  respond?: boolean;
}

/**
 * Wraps the dashboard as Koa middleware: requests under its path are answered, others go on.
 *
 * @example
 * app.use(toKoaMiddleware(createDashboard({ scheduler })));
 */
export function toKoaMiddleware(handler: FetchHandler) {
  const node = toNodeHandler(handler);
  return async function dashboardKoaMiddleware(ctx: KoaContextLike, next: () => Promise<unknown>) {
    const mount = handler.path;
    if (mount !== undefined && ctx.path !== mount && !ctx.path.startsWith(`${mount}/`)) return next();
    ctx.respond = false; // the handler writes the response itself
    node(ctx.req, ctx.res);
  };
}

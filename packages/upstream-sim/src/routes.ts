import type { IncomingMessage, ServerResponse } from "node:http";
import { handleCompletion } from "./completions.js";
import type { SimContext } from "./context.js";
import { handleEmbeddings } from "./embeddings.js";
import { vllmMetricsText } from "./engine-metrics.js";
import { HttpError } from "./errors.js";
import { sendError, sendJson } from "./http-io.js";

type Route = (context: SimContext, req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

function completionRoute(endpoint: "chat" | "completion"): Route {
  return async function completionRoute(context, req, res) {
    const controller = new AbortController();
    context.requests.add(controller);
    res.on("close", () => {
      if (!res.writableFinished) controller.abort(new Error("The client went away"));
      context.requests.delete(controller);
    });
    await handleCompletion(context, endpoint, req, res, controller.signal);
  };
}

const routes: Readonly<Record<string, Readonly<Record<string, Route>>>> = {
  "/v1/chat/completions": { POST: completionRoute("chat") },
  "/v1/completions": { POST: completionRoute("completion") },
  "/v1/embeddings": { POST: handleEmbeddings },
  "/v1/models": {
    GET: (context, _req, res) => {
      const model = { id: context.options.model, object: "model", created: 0, owned_by: "upstream-sim" };
      sendJson(res, 200, { object: "list", data: [model] });
    },
  },
  "/health": { GET: (_context, _req, res) => sendJson(res, 200, { status: "ok" }) },
  "/stats": { GET: (context, _req, res) => sendJson(res, 200, context.stats.snapshot()) },
  "/metrics": {
    GET: (context, _req, res) => {
      const text = vllmMetricsText(context);
      res.writeHead(200, {
        "content-type": "text/plain; version=0.0.4",
        "content-length": Buffer.byteLength(text),
      });
      res.end(text);
    },
  },
};

/**
 * Creates the request listener of a simulated server: the routes above, 405 for a known path with
 * another method, 404 with an OpenAI-style body for anything else.
 *
 * @example
 * const server = createServer(createRequestListener(createContext(resolveUpstreamOptions())));
 */
export function createRequestListener(
  context: SimContext,
): (req: IncomingMessage, res: ServerResponse) => void {
  return function upstreamSimListener(req, res) {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const methods = routes[path];
    if (methods === undefined) {
      req.resume();
      sendError(res, new HttpError(404, `Unknown route: ${req.method} ${path}`, { code: "not_found" }));
      return;
    }
    const route = methods[req.method ?? "GET"];
    if (route === undefined) {
      req.resume();
      const allow = Object.keys(methods).join(", ");
      const message = `Method ${req.method} is not allowed on ${path}; use ${allow}`;
      sendError(res, new HttpError(405, message, { code: "method_not_allowed", headers: { allow } }));
      return;
    }
    Promise.resolve(route(context, req, res)).catch(() => res.destroy());
  };
}

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Scheduler } from "@llm-scheduler/core";
import type { NextFunction, Request, Response } from "express";
import { schedulingOf } from "./middleware.js";
import { resolveExpressOptions, type ScheduledOptions } from "./options.js";

/** What `scheduled()` wraps: an Express app, or any Node request listener. */
export type NodeApp = (req: IncomingMessage, res: ServerResponse, next?: Out) => unknown;

/** The parent app's `next`, when `scheduled(app)` is mounted with `parent.use()`. */
type Out = (error?: unknown) => void;

/** `app` with every request scheduled: a Node request listener for `http.createServer()`. */
export interface ScheduledListener {
  (req: IncomingMessage, res: ServerResponse, next?: Out): void;
  /** The scheduler it uses (its own when none was given), for metrics and `close()`. */
  readonly scheduler: Scheduler;
}

/** A failure before the app ran (a mapping function threw): a bare 500, as Express's final handler. */
function answerFailure(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy(error instanceof Error ? error : undefined);
    return;
  }
  const body = "Internal Server Error";
  res.writeHead(500, {
    "content-type": "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/** Runs the app once the request holds its slot; an app that throws is answered as a failure. */
function runApp(app: NodeApp, req: IncomingMessage, res: ServerResponse, out: Out | undefined): void {
  try {
    app(req, res, out);
  } catch (failure) {
    fail(res, failure, out);
  }
}

/** A failure goes to the parent app's `next` when mounted, else it is answered with a bare 500. */
function fail(res: ServerResponse, error: unknown, out: Out | undefined): void {
  if (out === undefined) answerFailure(res, error);
  else out(error);
}

/**
 * Schedules every request of an Express app from outside it: `http.createServer(scheduled(app))`. A
 * request gets its slot on Node's own `req`/`res` before Express gives them its prototypes and routes
 * them, so neither the router layer of a mounted middleware nor Express's per-request objects are paid
 * for. It behaves as `schedulerMiddleware()` in front of every route of the app: the slot is held until
 * the handler has ended the response and it has been sent, the client leaving aborts
 * `req.llmScheduler.signal`, a run timeout (`timeoutMs`) answers 504 when nothing has been sent yet, and
 * rejections are answered with core's status, `Retry-After` and an OpenAI-style JSON body. The mapping
 * functions and `onRejected` receive Node's `req` and `res` (no `req.get()`, no `req.body`: no body
 * parser has run). Use the middleware to schedule only some routes.
 *
 * @example
 * const app = express();
 * app.post("/v1/chat/completions", async (req, res) => {
 *   const upstream = await fetch(url, { method: "POST", body: req, duplex: "half", signal: req.llmScheduler!.signal });
 *   // …stream upstream.body into res, then res.end(), also after an abort.
 * });
 * http.createServer(scheduled(app, { scheduler })).listen(8080);
 */
export function scheduled(app: NodeApp, options?: ScheduledOptions): ScheduledListener {
  const config = resolveExpressOptions(options, "scheduled");
  const scheduling = schedulingOf(config);

  function scheduledRequest(req: IncomingMessage, res: ServerResponse, out?: Out): void {
    const next = (error?: unknown): void => {
      if (error === undefined) runApp(app, req, res, out);
      else fail(res, error, out);
    };
    scheduling(req as Request, res as Response, next as NextFunction);
  }
  return Object.assign(scheduledRequest, { scheduler: config.scheduler });
}

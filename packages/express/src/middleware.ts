import {
  acquireSlot,
  answerInstead,
  headHeld,
  isThenable,
  nodeHeaderReader,
  onRunTimeout,
  type RequestSlot,
  type ResolvedAdapterOptions,
  ResponseWatch,
  readsUsage,
  rejectionFor,
  watchNodeUsage,
  withinOf,
} from "@llm-scheduler/adapter-kit";
import { isSchedulerError, type Scheduler } from "@llm-scheduler/core";
import { serverTiming } from "@llm-scheduler/core/kit";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { releaseWhenHandlerEnds, workGoesOn } from "./handler-end.js";
import {
  type ExpressRejectionHandler,
  type ExpressSchedulerOptions,
  resolveExpressOptions,
} from "./options.js";
import { setRequestSlot } from "./request-slot.js";

declare global {
  // Declaration merging is how Express types what middleware adds to `req` and `res.locals`.
  namespace Express {
    interface Request {
      /**
       * Set by `schedulerMiddleware()` or `scheduled(app)` once the request holds a slot: its `signal`
       * (aborts when the client goes away, on run timeout and on close; pass it to the upstream fetch),
       * `permit`, `priority`, `tenant`, `id` and `waitMs`. An own property of the request.
       */
      llmScheduler?: RequestSlot;
    }
    interface Locals {
      /** The same object as `req.llmScheduler`. */
      llmScheduler?: RequestSlot;
    }
  }
}

/** The middleware, with the scheduler it uses (its own when none was given) for metrics and `close()`. */
export interface SchedulerRequestHandler extends RequestHandler {
  readonly scheduler: Scheduler;
}

/**
 * Express 4 and 5 middleware that queues each request in the scheduler before the rest of the chain
 * runs, and holds its slot until the handler has ended the response (`res.end()`, streamed responses
 * included) and it has been sent. When the client leaves, the slot's signal aborts at once and the slot
 * is held until the handler ends its response or `abortGraceMs` passes, so the upstream never sees more
 * than the limit. A run timeout (`timeoutMs`) answers 504 when nothing has been sent yet. Rejections are
 * answered with core's status (429, 503, 400), `Retry-After`, `retry-after-ms` and an OpenAI-style JSON
 * body that never echoes a credential. The request body is never read (the token estimate uses
 * `req.body` when a JSON parser ran first); the `usage` of a JSON or SSE answer corrects the estimate.
 * Both only while the scheduler counts tokens (`countsTokens`: token fairness, budget or buckets); the
 * `usage` also while its limit is adaptive (`readsUsage`).
 *
 * @example
 * const scheduler = createScheduler({ maxConcurrency: 8 });
 * app.use("/v1/chat/completions", schedulerMiddleware({ scheduler }));
 * app.post("/v1/chat/completions", async (req, res) => {
 *   const upstream = await fetch(url, { method: "POST", body: req, duplex: "half", signal: req.llmScheduler!.signal });
 *   // …stream upstream.body into res, then res.end(), also after an abort.
 * });
 */
export function schedulerMiddleware(options?: ExpressSchedulerOptions): SchedulerRequestHandler {
  const config = resolveExpressOptions(options);
  const scheduling = schedulingOf(config);
  function llmScheduler(req: Request, res: Response, next: NextFunction): void {
    scheduling(req, res, next);
  }
  return Object.assign(llmScheduler, { scheduler: config.scheduler });
}

/**
 * The middleware's work, shared with `scheduled(app)`: acquires the request's slot, answers a rejection,
 * holds the slot until the response has been sent, then calls `next()`.
 */
export function schedulingOf(
  config: ResolvedAdapterOptions<Request, ExpressRejectionHandler>,
): RequestHandler {
  const { onRejected } = config;
  const within = withinOf(config.scheduler); // a traced scheduler runs the chain in the request's span
  const timed = config.timeoutMs !== undefined;

  function reject(error: unknown, req: Request, res: Response, next: NextFunction, watch: ResponseWatch) {
    if (!isSchedulerError(error)) return next(error);
    if (watch.ended || res.headersSent) return; // the client has gone: nobody to answer
    if (onRejected === undefined) {
      const { status, headers, body } = rejectionFor(error, nodeHeaderReader(req.headers));
      res.writeHead(status, headers).end(body);
      return;
    }
    try {
      Promise.resolve(onRejected(error, req, res, next)).catch(next);
    } catch (failure) {
      next(failure);
    }
  }

  function proceed(slot: RequestSlot, req: Request, res: Response, next: NextFunction, watch: ResponseWatch) {
    // Only with a run timeout or preemption: the head is held until the first body byte, so the
    // middleware can answer 504 or 503 until then whatever the handler did with it.
    const stoppable = timed || slot.permit.preemptible;
    watch.hold(slot.permit, stoppable);
    if (watch.ended) return watch.releaseAtEnd(); // granted just as the client left
    // The answer's usage matters while the scheduler counts tokens or adapts its limit (`readsUsage`).
    if (readsUsage(config.scheduler)) watchNodeUsage(res, (usage) => slot.reportUsage(usage));
    // Sent as usual, the response's end is the handler's; only a client gone first, or an answer of the
    // middleware's own (the 504 or 503), makes it wrap `end`/`destroy` to see the handler's.
    watch.endsWithResponse(workGoesOn);
    // Reading `slot.signal` makes the permit's AbortController: only when it can be stopped.
    if (stoppable)
      onRunTimeout(slot.signal, true, (error) => {
        if (watch.ended || !headHeld(res)) return; // the handler has sent its first byte: it ends it
        releaseWhenHandlerEnds(res, watch);
        const { status, headers, body } = rejectionFor(error);
        answerInstead(res, status, headers, body);
      });
    setRequestSlot(req, res, slot);
    res.setHeader("server-timing", serverTiming(slot.waitMs));
    if (within === undefined) next();
    else within(slot.permit, next);
  }
  function scheduleRequest(req: Request, res: Response, next: NextFunction): void {
    const watch = new ResponseWatch(res);
    const slot = acquireSlot(config, req, nodeHeaderReader(req.headers), watch);
    if (!isThenable(slot)) proceed(slot, req, res, next, watch);
    else
      slot.then(
        (granted) => proceed(granted, req, res, next, watch),
        (error: unknown) => reject(error, req, res, next, watch),
      );
  }
  return scheduleRequest;
}

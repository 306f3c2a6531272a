import {
  acquireSlot,
  isThenable,
  nodeHeaderReader,
  type RequestSlot,
  ResponseWatch,
  rejectionFor,
  watchNodeUsage,
} from "@llm-scheduler/adapter-kit";
import { isSchedulerError, type Scheduler } from "@llm-scheduler/core";
import { serverTiming } from "@llm-scheduler/core/kit";
import type { Context, Middleware, Next } from "koa";
import { type KoaSchedulerOptions, resolveOptions } from "./options.js";

/** What the middleware adds to `ctx.state`. */
export interface LlmSchedulerState {
  /**
   * The request's slot: `signal` (aborts when the client goes away, on run timeout and on close; pass it
   * to the upstream fetch), `permit`, `priority`, `tenant`, `id` and `waitMs`.
   */
  llmScheduler: RequestSlot;
}

/** The middleware, with the scheduler it uses (its own when none was given) for metrics and `close()`. */
export type SchedulerMiddleware = Middleware<LlmSchedulerState> & { readonly scheduler: Scheduler };

/**
 * Koa 3 middleware that queues each request in the scheduler before the downstream middleware runs, and
 * holds its slot until downstream has returned and the response has been completely sent (a stream body
 * until it ends) or the client has gone. Rejections are answered with core's status (429, 503, 400),
 * `Retry-After`, `retry-after-ms` and an OpenAI-style JSON body. The request body is never read (the
 * token estimate uses `ctx.request.body` when a body parser ran first); the `usage` of a JSON or SSE
 * answer corrects the estimate.
 *
 * @example
 * const scheduler = createScheduler({ maxConcurrency: 8 });
 * app.use(schedulerMiddleware({ scheduler }));
 * app.use(async (ctx) => {
 *   const upstream = await fetch(url, { signal: ctx.state.llmScheduler.signal });
 *   ctx.status = upstream.status;
 *   ctx.body = upstream.body; // a stream: the slot is held until it has been sent
 * });
 */
export function schedulerMiddleware(options?: KoaSchedulerOptions): SchedulerMiddleware {
  const config = resolveOptions(options);
  const { onRejected } = config;

  async function reject(error: unknown, ctx: Context, watch: ResponseWatch): Promise<void> {
    if (!isSchedulerError(error)) throw error;
    if (watch.ended) return; // the client has gone: nobody to answer
    if (onRejected !== undefined) return onRejected(error, ctx);
    const { status, headers, body } = rejectionFor(error);
    ctx.status = status;
    ctx.set(headers);
    ctx.body = body;
  }

  // Not `async`: a request that gets its slot at once costs no extra promise or tick before `next()`.
  function run(ctx: Context, next: Next, watch: ResponseWatch, slot: RequestSlot): Promise<void> | undefined {
    const { permit } = slot;
    if (watch.ended) {
      permit.release(); // granted just as the client left
      return undefined;
    }
    watch.hold(permit);
    watchNodeUsage(ctx.res, (usage) => slot.reportUsage(usage));
    ctx.state.llmScheduler = slot;
    ctx.res.setHeader("server-timing", serverTiming(slot.waitMs));
    // Downstream has returned; the body (maybe a stream) is sent after this, so wait for the response.
    return next().then(
      () => watch.releaseAtEnd(), // a 5xx sent counts as failed
      (error: unknown) => {
        watch.releaseAtEnd(error);
        throw error;
      },
    );
  }
  function llmScheduler(ctx: Context, next: Next): Promise<void> | undefined {
    const watch = new ResponseWatch(ctx.res);
    const slot = acquireSlot(config, ctx, nodeHeaderReader(ctx.req.headers), watch);
    if (!isThenable(slot)) return run(ctx, next, watch, slot);
    return Promise.resolve(slot).then(
      (granted) => run(ctx, next, watch, granted),
      (error: unknown) => reject(error, ctx, watch),
    );
  }
  return Object.assign(llmScheduler, { scheduler: config.scheduler });
}

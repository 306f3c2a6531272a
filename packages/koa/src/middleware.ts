import {
  acquireSlot,
  answerInstead,
  headHeld,
  isThenable,
  nodeHeaderReader,
  onRunTimeout,
  type RequestSlot,
  ResponseWatch,
  raceRunTimeout,
  readsUsage,
  rejectionFor,
  watchNodeUsage,
  withinOf,
} from "@llm-scheduler/adapter-kit";
import { isSchedulerError, type Scheduler, type SchedulerError } from "@llm-scheduler/core";
import { serverTiming } from "@llm-scheduler/core/kit";
import type { Context, Middleware, Next } from "koa";
import { discardBody, releaseWhenBodyEnds } from "./body-end.js";
import { type KoaSchedulerOptions, resolveKoaOptions } from "./options.js";

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

/** Sets the JSON error response on `ctx`, with no credential of the request in its message. */
function answer(ctx: Context, error: SchedulerError): void {
  const { status, headers, body } = rejectionFor(error, nodeHeaderReader(ctx.req.headers));
  ctx.status = status;
  ctx.set(headers);
  ctx.body = body;
}

/**
 * Koa 3 middleware that queues each request in the scheduler before the downstream middleware runs, and
 * holds its slot until downstream has returned, its body (a stream: until it ends) has been sent, or,
 * when the client leaves, until downstream and its body have stopped (the signal aborts at once) or
 * `abortGraceMs` has passed, so the upstream never sees more than the limit. A run timeout (`timeoutMs`)
 * answers 504 when nothing has been sent yet. Rejections are answered with core's status (429, 503, 400),
 * `Retry-After`, `retry-after-ms` and an OpenAI-style JSON body that never echoes a credential. The
 * request body is never read (the token estimate uses `ctx.request.body` when a body parser ran first);
 * the `usage` of a JSON or SSE answer corrects the estimate. Both only while the scheduler counts tokens
 * (`countsTokens`: token fairness, budget or buckets); the `usage` also while its limit is adaptive.
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
  const config = resolveKoaOptions(options);
  const { onRejected } = config;
  const within = withinOf(config.scheduler); // a traced scheduler runs the chain in the request's span
  const timed = config.timeoutMs !== undefined;

  async function reject(error: unknown, ctx: Context, watch: ResponseWatch): Promise<void> {
    if (!isSchedulerError(error)) throw error;
    if (watch.ended) return; // the client has gone: nobody to answer
    if (onRejected !== undefined) return onRejected(error, ctx);
    answer(ctx, error);
  }

  /** Answers a run timeout or preemption in place of the handler's answer, if its head is still held. */
  function stop(ctx: Context, watch: ResponseWatch, error: SchedulerError): boolean {
    if (watch.ended || !headHeld(ctx.res)) return false; // downstream has sent its first byte
    const { status, headers, body } = rejectionFor(error);
    answerInstead(ctx.res, status, headers, body);
    return true;
  }

  // Not `async`: a request that gets its slot at once costs no extra promise or tick before `next()`.
  function run(ctx: Context, next: Next, watch: ResponseWatch, slot: RequestSlot): Promise<void> | undefined {
    // Only with a run timeout or preemption: the head is held until the first body byte, so the
    // middleware can answer 504 or 503 until then (also while Koa waits for a stream body's first chunk).
    const stoppable = timed || slot.permit.preemptible;
    watch.hold(slot.permit, stoppable);
    if (watch.ended) {
      watch.releaseAtEnd(); // granted just as the client left
      return undefined;
    }
    // The answer's usage matters while the scheduler counts tokens or adapts its limit (`readsUsage`).
    if (readsUsage(config.scheduler)) watchNodeUsage(ctx.res, (usage) => slot.reportUsage(usage));
    ctx.state.llmScheduler = slot;
    ctx.res.setHeader("server-timing", serverTiming(slot.waitMs));
    let timedOut = false;
    const downstream = (within === undefined ? next() : within(slot.permit, next)).then(
      () => {
        if (timedOut) return discardBody(ctx.body, watch);
        releaseWhenBodyEnds(ctx, watch);
        // Koa sends the body now; a stream's first chunk may come much later: until then, still stoppable.
        if (stoppable && headHeld(ctx.res))
          onRunTimeout(slot.signal, true, (error) => stop(ctx, watch, error));
      },
      (error: unknown) => {
        watch.releaseAtEnd(error);
        if (!timedOut) throw error;
      },
    );
    if (!stoppable) return downstream; // reading `slot.signal` would make the permit's AbortController
    return raceRunTimeout(downstream, slot.signal, true, (error) => {
      if (!stop(ctx, watch, error)) return false;
      timedOut = true;
      ctx.respond = false; // nothing downstream still sets can replace it
      return true;
    });
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

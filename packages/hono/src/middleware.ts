import {
  acquireSlot,
  isThenable,
  nodeHeaderReader,
  type RequestSlot,
  ResponseWatch,
  raceRunTimeout,
  readsUsage,
  rejectionFor,
  withinOf,
} from "@llm-scheduler/adapter-kit";
import { isSchedulerError, type Scheduler } from "@llm-scheduler/core";
import type { HeaderReader } from "@llm-scheduler/core/kit";
import type { Context, MiddlewareHandler, Next } from "hono";
import type { LlmSchedulerEnv } from "./env.js";
import { type Holding, holdAnswer, holdPermit, timeOnNode, untilFirstByte } from "./hold.js";
import { inWorkerd, type Lifeline, Lifelines } from "./lifeline.js";
import { type NodeBindings, nodeBindingsOf } from "./node-bindings.js";
import { type HonoSchedulerOptions, resolveHonoOptions } from "./options.js";

/** The middleware, with the scheduler it uses (its own when none was given) for metrics and `close()`. */
export type SchedulerMiddleware = MiddlewareHandler<LlmSchedulerEnv> & { readonly scheduler: Scheduler };

/**
 * Hono 4 middleware (web standards only: Node, Bun, Deno, workers) that queues each request in the
 * scheduler before the handler runs, and holds its slot until the response has been sent: the body is
 * passed through a stream that releases after its last chunk, when it fails (counted as failed), or,
 * when the client leaves (the signal aborts at once), once its cancel has reached the source; on
 * `@hono/node-server` also not before Node has closed the response. A handler that never answers a
 * client that left keeps the slot until `abortGraceMs`. A run timeout (`timeoutMs`) answers 504 when the
 * handler has not answered yet. Rejections are answered with core's status (429, 503, 400),
 * `Retry-After`, `retry-after-ms` and an OpenAI-style JSON body that never echoes a credential. The
 * request body is never read by the middleware: a JSON body is read from a copy for the token estimate (the
 * handler still reads all of it); the `usage` of a JSON or SSE answer corrects the estimate. Both only
 * while the scheduler counts tokens (`countsTokens`: token fairness, budget or buckets); the `usage`
 * also while its limit is adaptive.
 *
 * @example
 * const app = new Hono<LlmSchedulerEnv>();
 * app.use("/v1/*", schedulerMiddleware({ scheduler }));
 * app.post("/v1/chat/completions", async (c) => {
 *   const { signal } = c.get("llmScheduler");
 *   const upstream = await fetch(url, { method: "POST", body: c.req.raw.body, duplex: "half", signal });
 *   return new Response(upstream.body, upstream); // the slot is held until the body has been sent
 * });
 */
export function schedulerMiddleware(options?: HonoSchedulerOptions): SchedulerMiddleware {
  const config = resolveHonoOptions(options);
  const { onRejected, scheduler } = config;
  const within = withinOf(config.scheduler); // a traced scheduler runs the chain in the request's span
  const timed = config.timeoutMs !== undefined;

  async function reject(
    error: unknown,
    c: Context<LlmSchedulerEnv>,
    header: HeaderReader,
  ): Promise<Response> {
    if (!isSchedulerError(error)) throw error;
    if (onRejected !== undefined) return onRejected(error, c);
    const { status, headers, body } = rejectionFor(error, header);
    return new Response(body, { status, headers });
  }
  // Not `async`: a request that gets its slot at once costs no extra promise or tick before `next()`.
  // `node` and `watch` follow Node's response on `@hono/node-server`; elsewhere there are none.
  function run(
    c: Context<LlmSchedulerEnv>,
    next: Next,
    slot: RequestSlot,
    node: NodeBindings | undefined,
    watch: ResponseWatch | undefined,
  ) {
    const readUsage = readsUsage(scheduler);
    const release = holdPermit(c.req.raw, slot, node?.outgoing, watch, readUsage);
    const holding: Holding = { slot, release, outgoing: node?.outgoing, readUsage };
    c.set("llmScheduler", slot);
    // Only with a run timeout or preemption: the answer is held until its body's first chunk, so that
    // the middleware can answer 504 or 503 until then (reading `slot.signal` makes an AbortController).
    const stoppable = timed || slot.permit.preemptible;
    let timedOut = false;
    const commit = (response: Response | undefined): undefined => {
      if (response === undefined) return undefined; // stopped first: the 504 or 503 went out
      if (!timedOut) holdContextResponse(c, holding, response);
      else response.body?.cancel().catch(() => undefined);
      return undefined;
    };
    const downstream = (within === undefined ? next() : within(slot.permit, next)).then(
      (): undefined | Promise<undefined> => {
        if (timedOut) {
          release(c.error); // the middleware's 504 went out instead of this response
          return undefined;
        }
        if (!stoppable) return commit(c.res);
        const first = untilFirstByte(c.res, c.req.raw, holding);
        return isThenable(first) ? first.then(commit) : commit(first);
      },
      (error: unknown): undefined => {
        release(error);
        if (timedOut) return undefined;
        timeOnNode(holding); // Hono's error handler answers
        throw error;
      },
    );
    if (!stoppable) return downstream;
    return raceRunTimeout(downstream, slot.signal, true, (error) => {
      timedOut = true;
      timeOnNode(holding);
      const { status, headers, body } = rejectionFor(error);
      c.res = undefined;
      c.res = new Response(body, { status, headers });
      return true;
    });
  }
  const lifelines = inWorkerd ? new Lifelines(config.scheduler) : undefined;
  function lifelineRun(
    c: Context<LlmSchedulerEnv>,
    next: Next,
    slot: PromiseLike<RequestSlot> | RequestSlot,
    line: Lifeline,
    header: HeaderReader,
  ) {
    return Promise.resolve(slot).then(
      (granted) => {
        line.hold(granted.permit);
        return run(c, next, granted, undefined, undefined);
      },
      (error: unknown) => {
        line.close();
        return reject(error, c, header);
      },
    );
  }
  function llmScheduler(c: Context<LlmSchedulerEnv>, next: Next): Promise<Response | undefined> {
    const node = nodeBindingsOf(c.env);
    const watch = node === undefined ? undefined : new ResponseWatch(node.outgoing);
    const header: HeaderReader =
      node === undefined ? (name) => c.req.header(name) : nodeHeaderReader(node.incoming.headers);
    const line = lifelines?.open(c.req.raw.signal); // workerd only: see lifeline.ts
    const slot = acquireSlot(config, c, header, watch ?? line ?? c.req.raw);
    if (line !== undefined) return lifelineRun(c, next, slot, line, header);
    if (!isThenable(slot)) return run(c, next, slot, node, watch);
    return Promise.resolve(slot).then(
      (granted) => run(c, next, granted, node, watch),
      (error: unknown) => reject(error, c, header),
    );
  }
  return Object.assign(llmScheduler, { scheduler: config.scheduler });
}

/** Puts the response that holds the slot in place of the handler's (replaced, so no headers are merged). */
function holdContextResponse(c: Context<LlmSchedulerEnv>, holding: Holding, response: Response): void {
  const sent = holdAnswer(response, c.req.raw, c.error, holding);
  if (sent === c.res) return;
  c.res = undefined;
  c.res = sent;
}

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
import { type Holding, holdAnswer, holdPermit, timeOnNode, untilFirstByte } from "./hold.js";
import { inWorkerd, type Lifeline, Lifelines } from "./lifeline.js";
import { type NodeBindings, nodeBindingsOf } from "./node-bindings.js";
import { resolveHonoOptions, type ScheduledOptions } from "./options.js";

/** What `scheduled()` wraps: a Hono app, or anything with Hono's `fetch(request, env, executionCtx)`. */
export interface FetchApp<E = unknown, X = unknown> {
  fetch(request: Request, env?: E, executionCtx?: X): Response | Promise<Response>;
}

/** `app` with every request scheduled; pass it to `serve()`, or export it as a module worker. */
export interface ScheduledApp<E = unknown, X = unknown> {
  readonly fetch: (request: Request, env?: E, executionCtx?: X) => Response | Promise<Response>;
  /** The scheduler it uses (its own when none was given), for metrics and `close()`. */
  readonly scheduler: Scheduler;
}

/**
 * Where a scheduled request keeps its slot, for {@link slotOf}: a property of the request object rather
 * than a `WeakMap` entry (one fewer hash-table write per request, and nothing for the gc to trace).
 */
const SLOT: unique symbol = Symbol("llm-scheduler slot");

type Slotted = Request & { [SLOT]?: RequestSlot };

/**
 * The slot of a request `scheduled(app)` let in: pass the handler's context (or `c.req.raw`). The
 * handler reads `signal` from it (aborts when the client leaves, on run timeout and on close), like
 * `c.get("llmScheduler")` behind the middleware. Throws when the request did not come through
 * `scheduled()`.
 *
 * @example
 * app.post("/v1/chat/completions", (c) => fetch(url, { signal: slotOf(c).signal }));
 */
export function slotOf(c: { readonly req: { readonly raw: Request } } | Request): RequestSlot {
  const request = (c as { readonly req?: { readonly raw: Request } }).req?.raw ?? (c as Request);
  const slot = (request as Slotted)[SLOT];
  if (slot === undefined) throw new TypeError("This request did not come through scheduled(app)");
  return slot;
}

/**
 * Schedules every request of a Hono app from outside it: wraps `app.fetch`, so that a request gets its
 * slot before Hono routes it, and Hono runs no middleware for it (its price for any middleware, a
 * composed chain and a promise per request, is not paid). It behaves as `schedulerMiddleware()` on
 * every route of the app: the slot is held until the response body has been sent, the client leaving
 * aborts `slotOf(c).signal`, a run timeout (`timeoutMs`) answers 504 when the app has not answered yet,
 * and rejections are answered with core's status, `Retry-After` and an OpenAI-style JSON body. Without
 * Hono's context the mapping functions receive the web `Request`, and a failure is judged by the
 * status sent (a 5xx counts as failed). Use the middleware to schedule only some routes.
 *
 * @example
 * const app = new Hono();
 * app.post("/v1/chat/completions", async (c) => {
 *   const upstream = await fetch(url, { method: "POST", body: c.req.raw.body, duplex: "half", signal: slotOf(c).signal } as RequestInit);
 *   return new Response(upstream.body, upstream);
 * });
 * serve(scheduled(app, { scheduler })); // or `export default scheduled(app, { scheduler })`
 */
export function scheduled<E = unknown, X = unknown>(
  app: FetchApp<E, X>,
  options?: ScheduledOptions,
): ScheduledApp<E, X> {
  const config = resolveHonoOptions(options, "scheduled");
  const { onRejected, scheduler } = config;
  const within = withinOf(scheduler);
  const timed = config.timeoutMs !== undefined;
  const lifelines = inWorkerd ? new Lifelines(scheduler) : undefined;

  async function reject(error: unknown, request: Request, header: HeaderReader): Promise<Response> {
    if (!isSchedulerError(error)) throw error;
    if (onRejected !== undefined) return onRejected(error, request);
    const { status, headers, body } = rejectionFor(error, header);
    return new Response(body, { status, headers });
  }

  function run(
    request: Request,
    env: E | undefined,
    ctx: X | undefined,
    slot: RequestSlot,
    node?: NodeBindings,
    watch?: ResponseWatch,
  ) {
    (request as Slotted)[SLOT] = slot;
    const readUsage = readsUsage(scheduler);
    const release = holdPermit(request, slot, node?.outgoing, watch, readUsage);
    const holding: Holding = { slot, release, outgoing: node?.outgoing, readUsage };
    let answer: Response | Promise<Response>;
    try {
      answer =
        within === undefined
          ? app.fetch(request, env, ctx)
          : within(slot.permit, () => app.fetch(request, env, ctx));
    } catch (error) {
      timeOnNode(holding);
      release(error);
      throw error;
    }
    // Only with a run timeout or preemption: reading `slot.signal` makes the permit's AbortController.
    const stoppable = timed || slot.permit.preemptible;
    if (!isThenable(answer) && !stoppable) return holdAnswer(answer, request, undefined, holding);
    return answered(Promise.resolve(answer), request, slot, holding, stoppable);
  }

  function answered(
    answer: Promise<Response>,
    request: Request,
    slot: RequestSlot,
    holding: Holding,
    stoppable: boolean,
  ) {
    let timedOut = false;
    const commit = (response: Response | undefined): Response | undefined => {
      if (response === undefined) return undefined; // stopped first: the 504 or 503 goes out
      if (!timedOut) return holdAnswer(response, request, undefined, holding);
      holding.release(); // the 504 went out instead of this response
      response.body?.cancel().catch(() => undefined);
      return undefined;
    };
    const held = answer.then(
      (response) => {
        // Until its body's first chunk, the answer is held back so that a 504 or 503 can replace it.
        if (!stoppable || timedOut) return commit(response);
        const first = untilFirstByte(response, request, holding);
        return isThenable(first) ? first.then(commit) : commit(first);
      },
      (error: unknown) => {
        timeOnNode(holding);
        holding.release(error);
        throw error;
      },
    );
    if (!stoppable) return held as Promise<Response>;
    return raceRunTimeout(held, slot.signal, true, () => {
      timedOut = true;
      timeOnNode(holding);
      return true;
    }).then((response) => response ?? timeoutAnswer(slot));
  }

  function viaLifeline(
    request: Request,
    env: E | undefined,
    ctx: X | undefined,
    slot: PromiseLike<RequestSlot> | RequestSlot,
    line: Lifeline,
    header: HeaderReader,
  ): Promise<Response> {
    return Promise.resolve(slot).then(
      (granted) => {
        line.hold(granted.permit);
        return run(request, env, ctx, granted);
      },
      (error: unknown) => {
        line.close();
        return reject(error, request, header);
      },
    );
  }

  function scheduledFetch(request: Request, env?: E, ctx?: X): Response | Promise<Response> {
    const node = nodeBindingsOf(env);
    const watch = node === undefined ? undefined : new ResponseWatch(node.outgoing);
    const header: HeaderReader =
      node === undefined
        ? (name) => request.headers.get(name) ?? undefined
        : nodeHeaderReader(node.incoming.headers);
    const line = lifelines?.open(request.signal); // workerd only: see lifeline.ts
    const slot = acquireSlot(config, request, header, watch ?? line ?? request);
    if (line !== undefined) return viaLifeline(request, env, ctx, slot, line, header);
    if (!isThenable(slot)) return run(request, env, ctx, slot, node, watch);
    return Promise.resolve(slot).then(
      (granted) => run(request, env, ctx, granted, node, watch),
      (error: unknown) => reject(error, request, header),
    );
  }
  return { fetch: scheduledFetch, scheduler };
}

/** The 504 of a run timeout: the app had not answered yet. */
function timeoutAnswer(slot: RequestSlot): Response {
  const { status, headers, body } = rejectionFor(slot.signal.reason);
  return new Response(body, { status, headers });
}

import {
  acquireSlot,
  failureOf,
  isThenable,
  type NodeWritableLike,
  nodeHeaderReader,
  type RequestSlot,
  ResponseWatch,
  rejectionFor,
  watchNodeUsage,
} from "@llm-scheduler/adapter-kit";
import { isSchedulerError, type Scheduler } from "@llm-scheduler/core";
import { serverTiming } from "@llm-scheduler/core/kit";
import type { Context, MiddlewareHandler, Next } from "hono";
import { heldResponse } from "./held-response.js";
import { type NodeBindings, nodeBindingsOf } from "./node-bindings.js";
import { type HonoSchedulerOptions, resolveOptions } from "./options.js";
import { usageReading } from "./usage-stream.js";

/** What the middleware sets on the context: `c.get("llmScheduler")`. */
export interface LlmSchedulerVariables {
  /**
   * The request's slot: `signal` (aborts when the client goes away, on run timeout and on close; pass it
   * to the upstream fetch), `permit`, `priority`, `tenant`, `id` and `waitMs`.
   */
  llmScheduler: RequestSlot;
}

/** A Hono environment with the middleware's variables; use it as `new Hono<LlmSchedulerEnv>()`. */
export interface LlmSchedulerEnv {
  Variables: LlmSchedulerVariables;
}

/** The middleware, with the scheduler it uses (its own when none was given) for metrics and `close()`. */
export type SchedulerMiddleware = MiddlewareHandler<LlmSchedulerEnv> & { readonly scheduler: Scheduler };

/** After the handler: holds the slot until the response has been sent (or the client has gone). */
function hold(c: Context<LlmSchedulerEnv>, slot: RequestSlot, watch: ResponseWatch | undefined): undefined {
  const { permit } = slot;
  if (watch !== undefined) {
    // On Node, wait for the real end of the response: no copy of it, no wrapped body. Without a thrown
    // error (`c.error` undefined), the status Node sent decides whether it failed.
    watch.releaseAtEnd(c.error);
    return undefined;
  }
  const response = c.res;
  const failure = c.error ?? failureOf(response.status);
  if (response.status < 200) {
    permit.release(failure); // an upgrade: no body of ours to follow
  } else {
    const unread = c.req.raw.signal.aborted || c.req.method === "HEAD"; // Hono drops a HEAD body unread
    c.res = undefined; // replace the response rather than merge its headers into a copy
    c.res = heldResponse(usageReading(response, slot), { waitMs: slot.waitMs, unread }, (broken) =>
      permit.release(broken ?? failure),
    );
  }
  return undefined;
}

/**
 * Hono 4 middleware (web standards only: Node, Bun, Deno, workers) that queues each request in the
 * scheduler before the handler runs, and holds its slot until the response has been sent: a body is
 * passed through a stream that releases after its last chunk, when the client cancels it or when it
 * fails; on `@hono/node-server` the slot is released when Node has sent the response or the connection
 * closed. Rejections are answered with core's status (429, 503, 400), `Retry-After`, `retry-after-ms`
 * and an OpenAI-style JSON body. A JSON request body is read from a copy for the token estimate (the
 * handler still reads all of it); the `usage` of a JSON or SSE answer corrects the estimate.
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
  const config = resolveOptions(options);
  const { onRejected } = config;

  async function reject(error: unknown, c: Context<LlmSchedulerEnv>): Promise<Response> {
    if (!isSchedulerError(error)) throw error;
    if (onRejected !== undefined) return onRejected(error, c);
    const { status, headers, body } = rejectionFor(error);
    return new Response(body, { status, headers });
  }
  // Not `async`: a request that gets its slot at once costs no extra promise or tick before `next()`.
  // `watch` follows Node's response on `@hono/node-server`; elsewhere there is none.
  function run(c: Context<LlmSchedulerEnv>, next: Next, slot: RequestSlot, watch: ResponseWatch | undefined) {
    const { permit } = slot;
    if (watch !== undefined) {
      watch.hold(permit);
      const { outgoing } = c.env as NodeBindings;
      outgoing.setHeader("server-timing", serverTiming(slot.waitMs));
      watchNodeUsage(outgoing as unknown as NodeWritableLike, (usage) => slot.reportUsage(usage));
    } else {
      const { signal } = c.req.raw;
      signal.addEventListener("abort", () => permit.abort(signal.reason), { once: true });
    }
    c.set("llmScheduler", slot);
    return next().then(
      () => hold(c, slot, watch),
      (error: unknown) => {
        permit.release(error);
        throw error;
      },
    );
  }
  function llmScheduler(c: Context<LlmSchedulerEnv>, next: Next): Promise<Response | undefined> {
    const node = nodeBindingsOf(c.env);
    const watch = node === undefined ? undefined : new ResponseWatch(node.outgoing);
    const slot = acquireSlot(
      config,
      c,
      node === undefined ? (name) => c.req.header(name) : nodeHeaderReader(node.incoming.headers),
      watch ?? c.req.raw,
    );
    if (!isThenable(slot)) return run(c, next, slot, watch);
    return Promise.resolve(slot).then(
      (granted) => run(c, next, granted, watch),
      (error: unknown) => reject(error, c),
    );
  }
  return Object.assign(llmScheduler, { scheduler: config.scheduler });
}

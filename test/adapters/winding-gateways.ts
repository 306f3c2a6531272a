import { Readable } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import Router from "@koa/router";
import { schedulerMiddleware as expressScheduler } from "@llm-scheduler/express";
import { schedulerMiddleware as honoScheduler, type LlmSchedulerEnv } from "@llm-scheduler/hono";
import { schedulerMiddleware as koaScheduler, type LlmSchedulerState } from "@llm-scheduler/koa";
import express from "express";
import { Hono } from "hono";
import Koa from "koa";
import type { StartGateway } from "./gateways.js";
import { serveListener } from "./serve.js";

/*
 * Gateways whose handlers forward the upstream stream chunk by chunk and notice the abort between two
 * chunks (as a handler that rewrites each chunk does), so their upstream call winds down a moment after
 * the client has left: the case where releasing the slot at the client's leaving overruns the upstream.
 */

const ROUTE = "/v1/chat/completions";

function callUpstream(upstreamUrl: string): Promise<Response> {
  return fetch(`${upstreamUrl}${ROUTE}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ stream: true }),
  });
}

/** The upstream's chunks until `signal` aborts, seen between chunks; then the upstream call is cancelled. */
async function* chunksUntil(body: ReadableStream<Uint8Array>, signal: AbortSignal) {
  const reader = body.getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done || signal.aborted) return;
      yield next.value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The Express gateway, on Express 5 or (given its factory) Express 4. */
export const startWindingExpressGateway =
  (createApp: typeof express = express): StartGateway =>
  (scheduler, upstreamUrl) => {
    const app = createApp();
    app.post(ROUTE, expressScheduler({ scheduler }), async (req, res) => {
      const { signal } = req.llmScheduler!;
      const upstream = await callUpstream(upstreamUrl);
      res.writeHead(200, { "content-type": "text/event-stream" });
      for await (const chunk of chunksUntil(upstream.body!, signal)) res.write(chunk);
      res.end();
    });
    return serveListener(app);
  };

export const startWindingKoaGateway: StartGateway = (scheduler, upstreamUrl) => {
  const app = new Koa();
  app.silent = true;
  const router = new Router<LlmSchedulerState>();
  router.post(ROUTE, koaScheduler({ scheduler }), async (ctx) => {
    const upstream = await callUpstream(upstreamUrl);
    ctx.type = "text/event-stream";
    ctx.body = Readable.from(chunksUntil(upstream.body!, ctx.state.llmScheduler.signal));
  });
  app.use(router.routes());
  return serveListener(app.callback());
};

export const startWindingHonoGateway: StartGateway = (scheduler, upstreamUrl) => {
  const app = new Hono<LlmSchedulerEnv>();
  app.post(ROUTE, honoScheduler({ scheduler }), async (c) => {
    const upstream = await callUpstream(upstreamUrl);
    const chunks = chunksUntil(upstream.body!, c.get("llmScheduler").signal);
    let step: Promise<IteratorResult<Uint8Array>> = Promise.resolve({ done: false, value: new Uint8Array() });
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        step = chunks.next();
        const next = await step;
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await step.catch(() => undefined); // finish the step under way, then stop
        await chunks.return(undefined);
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  return serveListener(getRequestListener(app.fetch));
};

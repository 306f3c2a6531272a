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

/**
 * The upstream's chunks until `signal` aborts, seen between chunks: `next()` then cancels the upstream
 * call and reports the end; `stop()` cancels it at once (the body was dropped unread).
 */
function chunksUntil(body: ReadableStream<Uint8Array>, signal: AbortSignal) {
  const reader = body.getReader();
  const stop = (): Promise<void> => reader.cancel().catch(() => undefined);
  return {
    async next(): Promise<Uint8Array | undefined> {
      const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (!next.done && !signal.aborted) return next.value;
      await stop();
      return undefined;
    },
    stop,
  };
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
      const chunks = chunksUntil(upstream.body!, signal);
      for (let chunk = await chunks.next(); chunk !== undefined; chunk = await chunks.next())
        res.write(chunk);
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
    const chunks = chunksUntil(upstream.body!, ctx.state.llmScheduler.signal);
    ctx.body = new Readable({
      read() {
        chunks.next().then((chunk) => this.push(chunk ?? null));
      },
      destroy(error, callback) {
        chunks.stop().then(() => callback(error));
      },
    });
  });
  app.use(router.routes());
  return serveListener(app.callback());
};

export const startWindingHonoGateway: StartGateway = (scheduler, upstreamUrl) => {
  const app = new Hono<LlmSchedulerEnv>();
  app.post(ROUTE, honoScheduler({ scheduler }), async (c) => {
    const upstream = await callUpstream(upstreamUrl);
    const chunks = chunksUntil(upstream.body!, c.get("llmScheduler").signal);
    let step: Promise<unknown> = Promise.resolve();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = chunks.next();
        step = next;
        const chunk = await next;
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk);
      },
      async cancel() {
        await step; // finish the step under way, then stop
        await chunks.stop();
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  return serveListener(getRequestListener(app.fetch));
};

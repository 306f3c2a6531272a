import { Readable } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import Router from "@koa/router";
import type { Scheduler } from "@llm-scheduler/core";
import {
  scheduled as expressScheduled,
  schedulerMiddleware as expressScheduler,
} from "@llm-scheduler/express";
import {
  schedulerMiddleware as honoScheduler,
  type LlmSchedulerEnv,
  scheduled,
  slotOf,
} from "@llm-scheduler/hono";
import { schedulerMiddleware as koaScheduler, type LlmSchedulerState } from "@llm-scheduler/koa";
import express from "express";
import { Hono } from "hono";
import Koa from "koa";
import type { ContractApp } from "./contract.js";
import { serveListener } from "./serve.js";

/** A gateway in front of an OpenAI-compatible upstream: the scheduler middleware and one proxy route. */
export type StartGateway = (
  scheduler: Scheduler,
  upstreamUrl: string,
) => Promise<ContractApp & { url: string }>;

const ROUTE = "/v1/chat/completions";

/** The request headers the upstream needs; the rest (client retry counters and the like) stay here. */
function upstreamHeaders(header: (name: string) => string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ["content-type", "authorization", "accept"]) {
    const value = header(name);
    if (value) headers[name] = value;
  }
  return headers;
}

/** Forwards the request body as a stream, untouched, cancelling the upstream call with `signal`. */
function forward(
  upstreamUrl: string,
  body: ReadableStream<Uint8Array> | Readable | null,
  header: (name: string) => string | undefined,
  signal: AbortSignal,
): Promise<Response> {
  const stream = body instanceof Readable ? (Readable.toWeb(body) as ReadableStream<Uint8Array>) : body;
  const init: RequestInit & { duplex: "half" } = {
    method: "POST",
    headers: upstreamHeaders(header),
    body: stream,
    duplex: "half",
    signal,
  };
  return fetch(`${upstreamUrl}${ROUTE}`, init);
}

/** The proxy route of the Express gateways: the upstream's status and type, its body chunk by chunk. */
function expressProxy(upstreamUrl: string): express.RequestHandler {
  return async (req, res) => {
    const { signal } = req.llmScheduler!;
    try {
      const upstream = await forward(upstreamUrl, req, (name) => req.get(name), signal);
      res.status(upstream.status).type(upstream.headers.get("content-type") ?? "application/json");
      res.flushHeaders();
      if (upstream.body) for await (const chunk of upstream.body) res.write(chunk);
    } catch (error) {
      if (!signal.aborted) throw error; // the client left (or the run timed out): nothing to report
    }
    res.end(); // also after an abort: tells the middleware the upstream call is over
  };
}

export const startExpressGateway: StartGateway = (scheduler, upstreamUrl) => {
  const app = express();
  app.post(ROUTE, expressScheduler({ scheduler }), expressProxy(upstreamUrl));
  return serveListener(app);
};

/** The Express gateway scheduled from outside the app, with `scheduled(app)`. */
export const startExpressScheduledGateway: StartGateway = (scheduler, upstreamUrl) => {
  const app = express();
  app.post(ROUTE, expressProxy(upstreamUrl));
  return serveListener(expressScheduled(app, { scheduler }));
};

export const startKoaGateway: StartGateway = (scheduler, upstreamUrl) => {
  const app = new Koa();
  app.silent = true;
  const router = new Router<LlmSchedulerState>();
  router.post(ROUTE, koaScheduler({ scheduler }), async (ctx) => {
    const { signal } = ctx.state.llmScheduler;
    const upstream = await forward(upstreamUrl, ctx.req, (name) => ctx.get(name) || undefined, signal);
    ctx.status = upstream.status;
    ctx.body = upstream.body;
    ctx.type = upstream.headers.get("content-type") ?? "application/json";
  });
  app.use(router.routes());
  return serveListener(app.callback());
};

export const startHonoGateway: StartGateway = (scheduler, upstreamUrl) => {
  const app = new Hono<LlmSchedulerEnv>();
  app.post(ROUTE, honoScheduler({ scheduler }), async (c) => {
    const { signal } = c.get("llmScheduler");
    const upstream = await forward(upstreamUrl, c.req.raw.body, (name) => c.req.header(name), signal);
    const type = upstream.headers.get("content-type") ?? "application/json";
    return new Response(upstream.body, { status: upstream.status, headers: { "content-type": type } });
  });
  return serveListener(getRequestListener(app.fetch));
};

/** The Hono gateway scheduled from outside the app, with `scheduled(app)`. */
export const startHonoScheduledGateway: StartGateway = (scheduler, upstreamUrl) => {
  const app = new Hono();
  app.post(ROUTE, async (c) => {
    const { signal } = slotOf(c);
    const upstream = await forward(upstreamUrl, c.req.raw.body, (name) => c.req.header(name), signal);
    const type = upstream.headers.get("content-type") ?? "application/json";
    return new Response(upstream.body, { status: upstream.status, headers: { "content-type": type } });
  });
  return serveListener(getRequestListener(scheduled(app, { scheduler }).fetch));
};

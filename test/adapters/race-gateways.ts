import { Readable } from "node:stream";
import Router from "@koa/router";
import { schedulerMiddleware as expressScheduler } from "@llm-scheduler/express";
import { schedulerMiddleware as koaScheduler, type LlmSchedulerState } from "@llm-scheduler/koa";
import express from "express";
import Koa from "koa";
import type { StartGateway } from "./gateways.js";
import { serveListener } from "./serve.js";

/*
 * Two more handler shapes for the preemption races: Express answering with `writeHead()` then `pipe()`,
 * and Koa writing to `ctx.res` by hand. Both send the upstream's status as soon as its headers come.
 */

const ROUTE = "/v1/chat/completions";

function callUpstream(upstreamUrl: string, body: string, signal: AbortSignal): Promise<Response> {
  return fetch(`${upstreamUrl}${ROUTE}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    signal,
  });
}

async function readAll(stream: Readable): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += String(chunk);
  return text;
}

export const startPipingExpressGateway: StartGateway = (scheduler, upstreamUrl) => {
  const app = express();
  app.post(ROUTE, expressScheduler({ scheduler }), async (req, res) => {
    const { signal } = req.llmScheduler!;
    try {
      const upstream = await callUpstream(upstreamUrl, await readAll(req), signal);
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "" });
      const body = Readable.fromWeb(upstream.body as never);
      body.on("error", () => res.end()); // aborted: the work is over
      body.pipe(res);
    } catch {
      res.end();
    }
  });
  return serveListener(app);
};

export const startManualKoaGateway: StartGateway = (scheduler, upstreamUrl) => {
  const app = new Koa();
  app.silent = true;
  const router = new Router<LlmSchedulerState>();
  router.post(ROUTE, koaScheduler({ scheduler }), async (ctx) => {
    const { signal } = ctx.state.llmScheduler;
    ctx.respond = false;
    try {
      const upstream = await callUpstream(upstreamUrl, await readAll(ctx.req), signal);
      ctx.res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "" });
      for await (const chunk of upstream.body!) ctx.res.write(chunk);
    } catch {
      // aborted: the work is over
    }
    ctx.res.end();
  });
  app.use(router.routes());
  return serveListener(app.callback());
};

import { getRequestListener } from "@hono/node-server";
import Router from "@koa/router";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { schedulerMiddleware as expressScheduler } from "@llm-scheduler/express";
import { schedulerMiddleware as honoScheduler, type LlmSchedulerEnv } from "@llm-scheduler/hono";
import { schedulerMiddleware as koaScheduler } from "@llm-scheduler/koa";
import { type TracedScheduler, traceScheduler } from "@llm-scheduler/otel";
import { context, propagation } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import express from "express";
import { Hono } from "hono";
import Koa from "koa";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ContractApp } from "../adapters/contract.js";
import { serveListener } from "../adapters/serve.js";

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(
  "it",
);
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(() => {
  context.disable();
  propagation.disable();
});

/** What the handler does upstream, as HTTP instrumentation would: a span under the active context. */
async function upstreamCall(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 5)); // the context survives an await
  tracer.startSpan("upstream call").end();
}

type Start = (traced: TracedScheduler) => Promise<ContractApp>;

const startExpress: Start = (traced) => {
  const app = express();
  app.post("/v1/chat", expressScheduler({ scheduler: traced.scheduler }), async (_req, res) => {
    await upstreamCall();
    res.json({ ok: true });
  });
  return serveListener(app);
};

const startHono: Start = (traced) => {
  const app = new Hono<LlmSchedulerEnv>();
  app.post("/v1/chat", honoScheduler({ scheduler: traced.scheduler }), async (c) => {
    await upstreamCall();
    return c.json({ ok: true });
  });
  return serveListener(getRequestListener(app.fetch));
};

const startKoa: Start = (traced) => {
  const app = new Koa();
  app.silent = true;
  const router = new Router();
  router.post("/v1/chat", koaScheduler({ scheduler: traced.scheduler }), async (ctx) => {
    await upstreamCall();
    ctx.body = { ok: true };
  });
  app.use(router.routes());
  return serveListener(app.callback());
};

describe.each([
  ["express", startExpress],
  ["koa", startKoa],
  ["hono (node server)", startHono],
] as const)("traces through a %s gateway", (_name, startGateway) => {
  let scheduler: Scheduler | undefined;
  let gateway: ContractApp | undefined;

  afterEach(async () => {
    await gateway?.close();
    await scheduler?.close({ timeoutMs: 100 });
    exporter.reset();
  });

  it("joins the client's traceparent, and the handler's upstream call is a child of the request span, through the adapter alone", async () => {
    scheduler = createScheduler({
      maxConcurrency: 1,
      priorities: { interactive: { maxQueue: 1 }, batch: {} },
    });
    const traced = traceScheduler(scheduler, { tracer });
    gateway = await startGateway(traced);
    const traceparent = `00-${TRACE_ID}-${CLIENT_SPAN}-01`;
    const response = await gateway.fetch("/v1/chat", { method: "POST", headers: { traceparent } });
    expect(response.status).toBe(200);
    await scheduler.onIdle();
    const finished = exporter.getFinishedSpans();
    const request = finished.find((span) => span.name === "llm_scheduler.request")!;
    const queue = finished.find((span) => span.name === "llm_scheduler.queue")!;
    const upstream = finished.find((span) => span.name === "upstream call")!;
    expect(request.spanContext().traceId).toBe(TRACE_ID);
    expect(request.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    expect(queue.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(upstream.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(request.attributes).toMatchObject({
      "llm_scheduler.outcome": "completed",
      "llm_scheduler.wait_ms": 0,
    });
  });

  it("records a request refused with 429 as a rejection in the client's trace", async () => {
    scheduler = createScheduler({
      maxConcurrency: 1,
      priorities: { interactive: { maxQueue: 1 }, batch: {} },
    });
    const traced = traceScheduler(scheduler, { tracer });
    gateway = await startGateway(traced);
    const holder = scheduler.tryAcquire()!;
    const waiting = scheduler.run(() => 1); // the one queue place is taken
    const traceparent = `00-${TRACE_ID}-${CLIENT_SPAN}-01`;
    const response = await gateway.fetch("/v1/chat", { method: "POST", headers: { traceparent } });
    expect(response.status).toBe(429);
    holder.release();
    await waiting;
    const request = exporter.getFinishedSpans().find((span) => span.name === "llm_scheduler.request")!;
    expect(request.spanContext().traceId).toBe(TRACE_ID);
    expect(request.attributes["llm_scheduler.outcome"]).toBe("queue_full");
    expect(request.events.map((event) => event.name)).toEqual(["llm_scheduler.rejected"]);
  });
});

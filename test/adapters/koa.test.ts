import { Readable } from "node:stream";
import Router from "@koa/router";
import { createScheduler } from "@llm-scheduler/core";
import { type LlmSchedulerState, schedulerMiddleware } from "@llm-scheduler/koa";
import Koa from "koa";
import { describe, expect, it } from "vitest";
import { type ContractSetup, runAdapterContract } from "./contract.js";
import { hangUpInHandler } from "./probe.js";
import { serveListener } from "./serve.js";

async function startKoaApp({ scheduler, probe, timeoutMs, mapped, customRejection }: ContractSetup) {
  const app = new Koa();
  app.silent = true;
  const router = new Router<LlmSchedulerState>();
  router.get("/slot", (ctx) => {
    const slot = ctx.state.llmScheduler;
    probe.enter(slot);
    const { id, priority, tenant, waitMs } = slot;
    ctx.body = { id, priority, tenant, waitMs };
  });
  router.get("/wait", async (ctx) => {
    probe.enter(ctx.state.llmScheduler);
    const outcome = await probe.hold(ctx.state.llmScheduler);
    ctx.status = outcome === "released" ? 200 : 504;
    ctx.body = outcome;
  });
  router.get("/stream", (ctx) => {
    probe.enter(ctx.state.llmScheduler);
    ctx.type = "text/event-stream";
    ctx.set("cache-control", "no-cache");
    ctx.body = Readable.from(probe.sse(ctx.state.llmScheduler));
  });
  router.get("/throw", (ctx) => {
    probe.enter(ctx.state.llmScheduler);
    throw new Error("handler failed");
  });
  router.get("/hang", async (ctx) => {
    probe.enter(ctx.state.llmScheduler);
    await new Promise(() => undefined);
  });
  router.get("/broken", (ctx) => {
    probe.enter(ctx.state.llmScheduler);
    ctx.type = "text/event-stream";
    const events = probe.sse(ctx.state.llmScheduler);
    ctx.body = Readable.from(
      (async function* broken() {
        yield (await events.next()).value as string;
        throw new Error("the upstream broke");
      })(),
    );
  });
  router.post("/echo", async (ctx) => {
    probe.enter(ctx.state.llmScheduler);
    let text = "";
    for await (const chunk of ctx.req) text += String(chunk);
    ctx.type = "text";
    ctx.body = text;
  });
  app.use(
    schedulerMiddleware({
      scheduler,
      timeoutMs,
      ...(mapped && {
        priority: async (ctx) => {
          if (ctx.get("x-plan") === "broken") throw new Error("no plan");
          return ctx.get("x-plan") === "free" ? "batch" : "interactive";
        },
        tenant: (ctx) => ctx.get("x-tenant") || "anonymous",
      }),
      ...(customRejection && {
        onRejected: (error, ctx) => {
          ctx.status = 529;
          ctx.set("x-rejected-by", "onRejected");
          ctx.body = `rejected: ${error.code}`;
        },
      }),
    }),
  );
  app.use(router.routes());
  return serveListener(app.callback());
}

runAdapterContract("koa", startKoaApp);

describe("koa: a web stream body set after the client has left", () => {
  it("is cancelled, and its slot freed well before the grace", async () => {
    const scheduler = createScheduler({ maxConcurrency: 1, abortGraceMs: 5_000 });
    let entered = false;
    let cancelled = false;
    const app = new Koa();
    app.silent = true;
    app.use(schedulerMiddleware({ scheduler }));
    app.use(async (ctx) => {
      const { signal } = ctx.state.llmScheduler as { signal: AbortSignal };
      entered = true;
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      ctx.body = new ReadableStream({
        cancel() {
          cancelled = true;
        },
      });
    });
    const server = await serveListener(app.callback());
    await hangUpInHandler(server, scheduler, () => entered);
    expect(cancelled).toBe(true);
  });
});

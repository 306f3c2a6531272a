import { type LlmSchedulerEnv, schedulerMiddleware } from "@llm-scheduler/hono";
import { Hono } from "hono";
import type { ContractSetup } from "./contract.js";

/** The contract's app in Hono, web standards only; run through `app.request()` or a real Node server. */
export function honoContractApp({ scheduler, probe, timeoutMs, mapped, customRejection }: ContractSetup) {
  const app = new Hono<LlmSchedulerEnv>();
  app.onError((error, c) => c.text(error.message, 500));
  app.use(
    "*",
    schedulerMiddleware({
      scheduler,
      timeoutMs,
      ...(mapped && {
        priority: async (c) => {
          if (c.req.header("x-plan") === "broken") throw new Error("no plan");
          return c.req.header("x-plan") === "free" ? "batch" : "interactive";
        },
        tenant: (c) => c.req.header("x-tenant") ?? "anonymous",
      }),
      ...(customRejection && {
        onRejected: (error, c) =>
          c.text(`rejected: ${error.code}`, 529 as 503, { "x-rejected-by": "onRejected" }),
      }),
    }),
  );
  app.get("/slot", (c) => {
    const slot = c.get("llmScheduler");
    probe.enter(slot);
    const { id, priority, tenant, waitMs } = slot;
    return c.json({ id, priority, tenant, waitMs });
  });
  app.get("/wait", async (c) => {
    probe.enter(c.get("llmScheduler"));
    const outcome = await probe.hold(c.get("llmScheduler"));
    return c.text(outcome, outcome === "released" ? 200 : 504);
  });
  app.get("/stream", (c) => {
    probe.enter(c.get("llmScheduler"));
    const events = probe.sse(c.get("llmScheduler"));
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await events.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await events.return(undefined);
      },
    });
    return c.body(body, 200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  });
  app.get("/throw", (c) => {
    probe.enter(c.get("llmScheduler"));
    throw new Error("handler failed");
  });
  app.get("/hang", async (c) => {
    probe.enter(c.get("llmScheduler"));
    return new Promise<Response>(() => undefined);
  });
  app.get("/broken", (c) => {
    probe.enter(c.get("llmScheduler"));
    const events = probe.sse(c.get("llmScheduler"));
    const encoder = new TextEncoder();
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent) return controller.error(new Error("the upstream broke"));
        sent = true;
        controller.enqueue(encoder.encode((await events.next()).value as string));
      },
    });
    return c.body(body, 200, { "content-type": "text/event-stream" });
  });
  app.post("/echo", async (c) => {
    probe.enter(c.get("llmScheduler"));
    return c.text(await c.req.text());
  });
  return app;
}

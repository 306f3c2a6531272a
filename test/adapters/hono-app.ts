import type { SchedulerError } from "@llm-scheduler/core";
import {
  type LlmSchedulerEnv,
  type RequestSlot,
  scheduled,
  schedulerMiddleware,
  slotOf,
} from "@llm-scheduler/hono";
import { type Context, Hono } from "hono";
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
  routes(app, probe, (c) => c.get("llmScheduler"));
  return app;
}

/**
 * The same contract app, scheduled from outside with `scheduled(app)` rather than the middleware: the
 * mappings read the web Request, and the handlers read their slot with `slotOf(c)`.
 */
export function honoScheduledContractApp({
  scheduler,
  probe,
  timeoutMs,
  mapped,
  customRejection,
}: ContractSetup) {
  const app = new Hono();
  app.onError((error, c) => c.text(error.message, 500));
  routes(app, probe, slotOf);
  return scheduled(app, {
    scheduler,
    timeoutMs,
    ...(mapped && {
      priority: async (request: Request) => {
        const plan = request.headers.get("x-plan");
        if (plan === "broken") throw new Error("no plan");
        return plan === "free" ? "batch" : "interactive";
      },
      tenant: (request: Request) => request.headers.get("x-tenant") ?? "anonymous",
    }),
    ...(customRejection && {
      onRejected: (error: SchedulerError) =>
        new Response(`rejected: ${error.code}`, {
          status: 529,
          headers: { "x-rejected-by": "onRejected", "content-type": "text/plain; charset=UTF-8" },
        }),
    }),
  });
}

/** The contract's routes; `slot` is how a handler reads its request's slot. */
// biome-ignore lint/suspicious/noExplicitAny: one set of routes for apps of either environment
function routes(app: Hono<any>, probe: ContractSetup["probe"], slot: (c: Context<any>) => RequestSlot): void {
  app.get("/slot", (c) => {
    const held = slot(c);
    probe.enter(held);
    const { id, priority, tenant, waitMs } = held;
    return c.json({ id, priority, tenant, waitMs });
  });
  app.get("/wait", async (c) => {
    probe.enter(slot(c));
    const outcome = await probe.hold(slot(c));
    return c.text(outcome, outcome === "released" ? 200 : 504);
  });
  app.get("/stream", (c) => {
    probe.enter(slot(c));
    const events = probe.sse(slot(c));
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
    probe.enter(slot(c));
    throw new Error("handler failed");
  });
  app.get("/hang", async (c) => {
    probe.enter(slot(c));
    return new Promise<Response>(() => undefined);
  });
  app.get("/broken", (c) => {
    probe.enter(slot(c));
    const events = probe.sse(slot(c));
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
    probe.enter(slot(c));
    return c.text(await c.req.text());
  });
}

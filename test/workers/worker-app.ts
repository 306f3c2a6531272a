import { createScheduler } from "@llm-scheduler/core";
import { type LlmSchedulerEnv, scheduled, schedulerMiddleware, slotOf } from "@llm-scheduler/hono";
import { type Context, Hono } from "hono";

/**
 * The Worker under test: a Hono app with the scheduler middleware and one module-level scheduler (so one
 * per isolate), limit 2. `/v1/stream` streams `chunks` chunks `gapMs` apart from timers of its own, as an
 * upstream model would; `/metrics` reads the scheduler outside the middleware. `/app/v1/stream` is the
 * same stream through `scheduled(app)`, with `/app-metrics`.
 */
const scheduler = createScheduler({
  maxConcurrency: 2,
  priorities: {
    interactive: { weight: 5, queueTimeoutMs: 30_000 },
    batch: { weight: 1, queueTimeoutMs: 30_000 },
  },
});

const app = new Hono<LlmSchedulerEnv>();
/** Streams being produced now, and the most ever at once: never above the limit if the scheduler holds. */
let streaming = 0;
let maxStreaming = 0;

app.get("/metrics", (c) => {
  const { running, queued, completed, failed, rejected } = scheduler.metrics();
  return c.json({ running, queued, completed, failed, rejected, streaming, maxStreaming });
});

app.use("/v1/*", schedulerMiddleware({ scheduler }));

/** A second scheduler, limit 1, whose queued requests time out after 300 ms, under `/short/*`. */
const short = createScheduler({
  maxConcurrency: 1,
  priorities: { interactive: { queueTimeoutMs: 300 } },
});
app.get("/short/metrics", (c) => {
  const { running, queued, completed, rejected } = short.metrics();
  return c.json({ running, queued, completed, rejected });
});
app.use("/short/*", schedulerMiddleware({ scheduler: short }));
app.get("/short/wait", async (c) => {
  await new Promise((resolve) => setTimeout(resolve, Number(c.req.query("ms") ?? "2000")));
  return c.text("done");
});

app.get("/v1/stream", (c) => stream(c, c.get("llmScheduler").signal));

/** Streams `chunks` chunks `gapMs` apart, stopping when `signal` aborts. */
function stream(c: Context, signal: AbortSignal): Response {
  const chunks = Number(c.req.query("chunks") ?? "5");
  const gapMs = Number(c.req.query("gapMs") ?? "40");
  let sent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  streaming += 1;
  maxStreaming = Math.max(maxStreaming, streaming);
  const end = () => {
    clearTimeout(timer);
    streaming -= 1;
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const tick = () => {
        if (signal.aborted) {
          end();
          return controller.error(signal.reason);
        }
        controller.enqueue(new TextEncoder().encode(`data: chunk ${sent}\n\n`));
        sent += 1;
        if (sent < chunks) timer = setTimeout(tick, gapMs);
        else {
          end();
          controller.close();
        }
      };
      timer = setTimeout(tick, gapMs);
    },
    cancel: end,
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/** The same stream under `/app`, in an app scheduled from outside with `scheduled(app)` (its own limit of 2). */
const appScheduler = createScheduler({
  maxConcurrency: 2,
  priorities: { interactive: { weight: 5, queueTimeoutMs: 30_000 } },
});
app.get("/app-metrics", (c) => {
  const { running, queued, completed, failed, rejected } = appScheduler.metrics();
  return c.json({ running, queued, completed, failed, rejected, streaming, maxStreaming });
});
const inner = new Hono();
inner.get("/app/v1/stream", (c) => stream(c, slotOf(c).signal));
const wrapped = scheduled(inner, { scheduler: appScheduler });

export default {
  fetch(request: Request, env: unknown, ctx: Parameters<typeof app.fetch>[2]): Response | Promise<Response> {
    const inApp = new URL(request.url).pathname.startsWith("/app/");
    return inApp ? wrapped.fetch(request, env, ctx) : app.fetch(request, env, ctx);
  },
};

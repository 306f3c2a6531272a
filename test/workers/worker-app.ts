import { createScheduler } from "@llm-scheduler/core";
import { type LlmSchedulerEnv, schedulerMiddleware } from "@llm-scheduler/hono";
import { Hono } from "hono";

/**
 * The Worker under test: a Hono app with the scheduler middleware and one module-level scheduler (so one
 * per isolate), limit 2. `/v1/stream` streams `chunks` chunks `gapMs` apart from timers of its own, as an
 * upstream model would; `/metrics` reads the scheduler outside the middleware.
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

app.get("/v1/stream", (c) => {
  const chunks = Number(c.req.query("chunks") ?? "5");
  const gapMs = Number(c.req.query("gapMs") ?? "40");
  const { signal } = c.get("llmScheduler");
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
});

export default app;

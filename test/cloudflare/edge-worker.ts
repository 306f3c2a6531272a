import { env as workerEnv } from "cloudflare:workers";
import { DurableObjectStore, type ObjectNamespace } from "@llm-scheduler/cloudflare";
import { createScheduler } from "@llm-scheduler/core";
import { type LlmSchedulerEnv, schedulerMiddleware } from "@llm-scheduler/hono";
import { Hono } from "hono";

interface Env {
  readonly LLM_SCHEDULER: ObjectNamespace;
  readonly UPSTREAM_URL: string;
  readonly LEASE_MS: string;
}
const env = workerEnv as unknown as Env;

/**
 * One edge Worker of the global-limit tests (several run at once, each its own isolate): a module-level
 * scheduler of limit 3 whose store is the shared Durable Object "shared". `/v1/stream?holdMs=` relays
 * the counting upstream's stream for that long, then ends it (and the upstream request with it).
 */
const scheduler = createScheduler({
  maxConcurrency: 3,
  priorities: { interactive: { queueTimeoutMs: 60_000 } },
  store: new DurableObjectStore({
    namespace: env.LLM_SCHEDULER,
    name: "shared",
    leaseMs: Number(env.LEASE_MS),
    onError: (error) => console.error("store:", error),
  }),
});

const app = new Hono<LlmSchedulerEnv>();
app.get("/metrics", (c) => {
  const { running, queued, completed, failed, rejected } = scheduler.metrics();
  return c.json({ running, queued, completed, failed, rejected });
});
app.use("/v1/*", schedulerMiddleware({ scheduler }));
app.get("/v1/stream", async (c) => {
  const holdMs = Number(c.req.query("holdMs") ?? "100");
  const { signal } = c.get("llmScheduler"); // aborted when the slot goes: the upstream call ends with it
  const upstream = await fetch(env.UPSTREAM_URL, { method: "POST", body: "{}", signal });
  const reader = upstream.body!.getReader();
  const until = Date.now() + holdMs;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done || Date.now() >= until) {
        await reader.cancel();
        controller.close();
        return;
      }
      controller.enqueue(value);
    },
    cancel: () => reader.cancel(),
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
});

export default app;

import { createScheduler } from "@llm-scheduler/core";
import { type LlmSchedulerEnv, schedulerMiddleware } from "@llm-scheduler/hono";
import { Hono } from "hono";

/**
 * A small gateway run by `runtimes.test.ts` under Bun and Deno, straight from TypeScript: one slot, two
 * priorities. `/v1/work?ms=N` holds its slot for N ms and records the order in which handlers started;
 * (or until its signal aborts); `/state` reports that order and the scheduler's counts. It prints `{"port":N}` once listening.
 */
const scheduler = createScheduler({
  maxConcurrency: 1,
  priorities: {
    interactive: { weight: 5, queueTimeoutMs: 10_000 },
    batch: { weight: 1, queueTimeoutMs: 10_000 },
  },
});
const started: string[] = [];

const app = new Hono<LlmSchedulerEnv>();
app.get("/state", (c) => {
  const { running, queued, completed, failed } = scheduler.metrics();
  return c.json({ started, running, queued, completed, failed });
});
app.use("/v1/*", schedulerMiddleware({ scheduler }));
app.get("/v1/work", async (c) => {
  const { id, priority, signal } = c.get("llmScheduler");
  started.push(`${priority}:${id}`);
  // Stands for the upstream call: it stops when the signal aborts (the client left).
  await new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, Number(c.req.query("ms") ?? "0"));
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  });
  return c.json({ id, priority });
});

interface Runtimes {
  Bun?: { serve(options: object): { port: number } };
  Deno?: { serve(options: object, handler: (request: Request) => Response | Promise<Response>): unknown };
}
const runtime = globalThis as Runtimes;
const announce = (port: number) => console.log(JSON.stringify({ port }));
if (runtime.Bun !== undefined) {
  announce(runtime.Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch }).port);
} else if (runtime.Deno !== undefined) {
  runtime.Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: ({ port }: { port: number }) => announce(port) },
    app.fetch,
  );
} else {
  throw new Error("run this under bun or deno");
}

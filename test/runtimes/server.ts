import { createScheduler } from "@llm-scheduler/core";
import {
  type LlmSchedulerEnv,
  type RequestSlot,
  scheduled,
  schedulerMiddleware,
  slotOf,
} from "@llm-scheduler/hono";
import { type Context, Hono } from "hono";

/**
 * A small gateway run by `runtimes.test.ts` under Bun and Deno, straight from TypeScript: one slot, two
 * priorities; `/v1/*` behind the middleware, `/app/v1/*` through `scheduled(app)`. `/v1/work?ms=N` holds its slot for N ms and records the order in which handlers started;
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
/** Stands for the upstream call: it stops when the signal aborts (the client left). */
async function work(c: Context, slot: RequestSlot): Promise<Response> {
  const { id, priority, signal } = slot;
  started.push(`${priority}:${id}`);
  await new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, Number(c.req.query("ms") ?? "0"));
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  });
  return c.json({ id, priority });
}
app.get("/v1/work", (c) => work(c, c.get("llmScheduler")));

// The same route under `/app`, in an app scheduled from outside with `scheduled(app)` (same scheduler).
const inner = new Hono();
inner.get("/app/v1/work", (c) => work(c, slotOf(c)));
const wrapped = scheduled(inner, { scheduler });
const serveBoth = (request: Request): Response | Promise<Response> =>
  new URL(request.url).pathname.startsWith("/app/") ? wrapped.fetch(request) : app.fetch(request);

interface Runtimes {
  Bun?: { serve(options: object): { port: number } };
  Deno?: { serve(options: object, handler: (request: Request) => Response | Promise<Response>): unknown };
}
const runtime = globalThis as Runtimes;
const announce = (port: number) => console.log(JSON.stringify({ port }));
if (runtime.Bun !== undefined) {
  announce(runtime.Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: serveBoth }).port);
} else if (runtime.Deno !== undefined) {
  runtime.Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: ({ port }: { port: number }) => announce(port) },
    serveBoth,
  );
} else {
  throw new Error("run this under bun or deno");
}

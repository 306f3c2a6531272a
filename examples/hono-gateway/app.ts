// The gateway itself: web standards only, so the same app runs on Node, Bun, Deno and Cloudflare Workers.
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { createDashboard } from "@llm-scheduler/dashboard";
import { type LlmSchedulerEnv, schedulerMiddleware } from "@llm-scheduler/hono";
import { Hono } from "hono";

const PASSED_HEADERS = ["content-type", "cache-control", "x-request-id"];

/** A short, non-reversible tenant name for an API key (never put raw keys in metrics). */
async function tenantOf(authorization: string | undefined): Promise<string> {
  const key = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  if (key === undefined) return "anonymous";
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  const hex = [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `key-${hex.slice(0, 10)}`;
}

/**
 * The Hono app: `/v1/*` POSTs wait in the scheduler, then go upstream; the answer streams back and the
 * slot is held until its last chunk has been sent.
 */
export function createApp(
  upstreamUrl: string,
  scheduler: Scheduler = createScheduler(),
): Hono<LlmSchedulerEnv> {
  const app = new Hono<LlmSchedulerEnv>();
  app.get("/health", (c) => c.json({ status: "ok" }));
  app.get("/metrics", (c) => c.json(scheduler.metrics()));
  const dashboard = createDashboard({ scheduler }); // read-only; see the dashboard's README for controls
  app.all("/dashboard/*", (c) => dashboard(c.req.raw));
  // Clients start at the default priority and may lower it with `x-priority: batch`.
  app.use(
    "/v1/*",
    schedulerMiddleware({ scheduler, tenant: (c) => tenantOf(c.req.header("authorization")) }),
  );
  app.post("/v1/chat/completions", (c) => relay(c.req.raw, upstreamUrl, c.get("llmScheduler").signal));
  app.post("/v1/completions", (c) => relay(c.req.raw, upstreamUrl, c.get("llmScheduler").signal));
  return app;
}

/** Forwards the request upstream; `signal` (the scheduler's) cancels it when the client leaves. */
async function relay(request: Request, upstreamUrl: string, signal: AbortSignal): Promise<Response> {
  const path = new URL(request.url).pathname;
  const upstream = await fetch(`${upstreamUrl}${path}`, {
    method: "POST",
    headers: {
      "content-type": request.headers.get("content-type") ?? "application/json",
      "accept-encoding": "identity",
    },
    body: await request.arrayBuffer(),
    signal,
  });
  const headers = new Headers();
  for (const name of PASSED_HEADERS) {
    const value = upstream.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  return new Response(upstream.body, { status: upstream.status, headers });
}

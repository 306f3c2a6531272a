// A Koa gateway to an OpenAI-compatible server, with llm-scheduler in front of the generation routes.
// Run: UPSTREAM_URL=http://127.0.0.1:8000 pnpm start
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import Router from "@koa/router";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { createDashboard } from "@llm-scheduler/dashboard";
import { toKoaMiddleware } from "@llm-scheduler/dashboard/node";
import { type LlmSchedulerState, schedulerMiddleware } from "@llm-scheduler/koa";
import Koa, { type Context } from "koa";

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "date"]);

/** The tenant of a request: a fingerprint of its API key (never the key itself), or "anonymous". */
function tenantOf(ctx: Context): string {
  const key = /^Bearer\s+(\S+)$/i.exec(ctx.get("authorization"))?.[1];
  return key === undefined
    ? "anonymous"
    : `key-${createHash("sha256").update(key).digest("hex").slice(0, 10)}`;
}

async function rawBody(ctx: Context): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/** The Koa app: every `/v1/*` POST goes through the scheduler, then upstream; the answer streams back. */
export function createApp(upstreamUrl: string, scheduler: Scheduler): Koa<LlmSchedulerState> {
  const app = new Koa<LlmSchedulerState>();
  const router = new Router<LlmSchedulerState>();
  router.get("/health", (ctx) => {
    ctx.body = { status: "ok" };
  });
  router.get("/metrics", (ctx) => {
    ctx.body = scheduler.metrics();
  });
  // Without a `priority` option, clients start at the default priority and may lower it with
  // `x-priority: batch`; they can never raise it.
  const limiter = schedulerMiddleware({ scheduler, tenant: tenantOf });
  router.post(["/v1/chat/completions", "/v1/completions"], limiter, async (ctx) => {
    const { signal } = ctx.state.llmScheduler; // aborts when the client leaves: the upstream call stops
    const upstream = await fetch(`${upstreamUrl}${ctx.path}`, {
      method: "POST",
      headers: {
        "content-type": ctx.get("content-type") || "application/json",
        "accept-encoding": "identity",
      },
      body: await rawBody(ctx),
      signal,
    });
    ctx.status = upstream.status;
    upstream.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) ctx.set(name, value);
    });
    ctx.body = upstream.body; // a web stream: Koa pipes it, and the adapter holds the slot until it ends
  });
  app.use(toKoaMiddleware(createDashboard({ scheduler }))); // a read-only live page at /dashboard
  app.use(router.routes()).use(router.allowedMethods());
  return app;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const upstreamUrl = (process.env.UPSTREAM_URL ?? "http://127.0.0.1:8000").replace(/\/+$/, "");
  const scheduler = createScheduler({ maxConcurrency: Number(process.env.MAX_CONCURRENCY ?? 8) });
  const server = createServer(createApp(upstreamUrl, scheduler).callback());
  const host = process.env.HOST ?? "127.0.0.1";
  server.listen(Number(process.env.PORT ?? 3000), host, () => {
    const { port } = server.address() as AddressInfo;
    console.log(`koa-gateway listening on http://${host}:${port} -> ${upstreamUrl}`);
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      server.close();
      server.closeIdleConnections();
      scheduler.close({ drain: true, timeoutMs: 10_000 }).then(() => process.exit(0));
    });
  }
}

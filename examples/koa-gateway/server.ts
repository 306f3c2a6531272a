// A Koa gateway to an OpenAI-compatible server (vLLM, Ollama, any OpenAI-style server), with
// llm-scheduler deciding which request goes upstream next. Run: UPSTREAM_URL=http://127.0.0.1:8000 pnpm start
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import Router from "@koa/router";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { lowerOnlyPriority } from "@llm-scheduler/core/kit";
import { createDashboard } from "@llm-scheduler/dashboard";
import { toKoaMiddleware } from "@llm-scheduler/dashboard/node";
import { type LlmSchedulerState, schedulerMiddleware } from "@llm-scheduler/koa";
import { collectMetrics } from "@llm-scheduler/prometheus";
import Koa, { type Context, type Next } from "koa";
import { Registry } from "prom-client";
import { configFrom, type KeyEntry, type ProxyConfig } from "./config.js";

const GENERATION_ROUTES = ["/v1/chat/completions", "/v1/completions", "/v1/embeddings"];
/** Response headers about one hop, not the content; Node's server sets its own. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "date"]);

interface State extends LlmSchedulerState {
  key: KeyEntry;
}

/** An OpenAI-style error body, as the official clients expect it. */
function fail(ctx: Context, status: number, message: string, type: string, code: string): void {
  ctx.status = status;
  ctx.body = { error: { message, type, code, param: null } };
}

/** Finds who the bearer key belongs to; with no key table, any key is its own tenant (a fingerprint). */
function authenticate(config: ProxyConfig, scheduler: Scheduler) {
  return async function authenticate(ctx: Context & { state: State }, next: Next): Promise<void> {
    const key = /^Bearer\s+(\S+)$/i.exec(ctx.get("authorization"))?.[1];
    if (key === undefined) {
      return fail(
        ctx,
        401,
        "Missing API key (Authorization: Bearer <key>)",
        "invalid_request_error",
        "invalid_api_key",
      );
    }
    const entry = config.keys.get(key);
    if (entry === undefined && config.keys.size > 0) {
      return fail(ctx, 401, "Unknown API key", "invalid_request_error", "invalid_api_key");
    }
    // Never put a raw key in metrics or logs: an unlisted key becomes a short fingerprint.
    ctx.state.key = entry ?? {
      tenant: `key-${createHash("sha256").update(key).digest("hex").slice(0, 10)}`,
      priority: scheduler.options.defaultPriority,
    };
    await next();
  };
}

async function rawBody(ctx: Context): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (ctx.method === "GET" || ctx.method === "HEAD") return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/** Sends the request upstream and streams the answer back; 502 JSON when the upstream is unreachable. */
function relay(config: ProxyConfig) {
  return async function relay(ctx: Context & { state: State }): Promise<void> {
    // Aborts when the client leaves (or on run timeout): the upstream call stops, the slot is freed.
    const signal = ctx.state.llmScheduler?.signal ?? AbortSignal.timeout(30_000);
    const headers: Record<string, string> = {
      "content-type": ctx.get("content-type") || "application/json",
      accept: ctx.get("accept") || "*/*",
      "accept-encoding": "identity", // fetch would decode gzip; ask for the bytes as they are
    };
    if (config.upstreamKey !== undefined) headers.authorization = `Bearer ${config.upstreamKey}`;
    let upstream: Response;
    try {
      upstream = await fetch(`${config.upstreamUrl}${ctx.path}`, {
        method: ctx.method,
        headers,
        body: await rawBody(ctx),
        signal,
      });
    } catch (error) {
      if (signal.aborted) return; // the client has gone: nobody to answer
      const message = `The upstream server could not be reached: ${(error as Error).message}`;
      return fail(ctx, 502, message, "upstream_error", "bad_gateway");
    }
    ctx.status = upstream.status;
    upstream.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) ctx.set(name, value);
    });
    ctx.body = upstream.body ?? ""; // a web stream: Koa pipes it; the adapter holds the slot until it ends
  };
}

/** The Koa app: scheduled generation routes, pass-through model list, health and metrics. */
export function createApp(config: ProxyConfig, scheduler: Scheduler): Koa<State> {
  for (const [key, entry] of config.keys) {
    if (!scheduler.options.priorityByName.has(entry.priority)) {
      throw new TypeError(`API key ${key.slice(0, 6)}… asks for an unknown priority \`${entry.priority}\``);
    }
  }
  const app = new Koa<State>();
  app.silent = true; // answers say what went wrong; a client that left is not an error to log
  const router = new Router<State>();
  router.get("/health", (ctx) => {
    ctx.body = { status: "ok" };
  });
  const registry = new Registry();
  collectMetrics(scheduler, { registry });
  router.get("/metrics", async (ctx) => {
    ctx.type = registry.contentType; // Prometheus text format
    ctx.body = await registry.metrics();
  });
  router.get("/metrics.json", (ctx) => {
    ctx.body = scheduler.metrics();
  });
  router.get("/v1/models", authenticate(config, scheduler), relay(config));
  const limiter = schedulerMiddleware({
    scheduler,
    tenant: (ctx) => (ctx.state as State).key.tenant,
    // The key decides the priority; an `x-priority` header may only lower it (e.g. to "batch").
    priority: (ctx) =>
      lowerOnlyPriority(scheduler.options, ctx.get("x-priority"), (ctx.state as State).key.priority),
  });
  router.post(GENERATION_ROUTES, authenticate(config, scheduler), limiter, relay(config));
  app.use(toKoaMiddleware(createDashboard({ scheduler }))); // a read-only live page at /dashboard
  app.use(router.routes()).use(router.allowedMethods());
  return app;
}

/** Starts the gateway; resolves with its URL and a function that stops it. */
export async function start(config: ProxyConfig) {
  const scheduler = createScheduler({ maxConcurrency: config.maxConcurrency });
  const server = createServer(createApp(config, scheduler).callback());
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const { port } = server.address() as AddressInfo;
  const stop = async (): Promise<void> => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await scheduler.close({ drain: true, timeoutMs: 10_000 });
  };
  return { url: `http://${config.host}:${port}`, scheduler, stop };
}

/** The configuration, or a one-line explanation and exit code 1 (no stack trace for a typo). */
function configOrExit(): ProxyConfig {
  try {
    return configFrom(process.env);
  } catch (error) {
    console.error(`koa-gateway: ${(error as Error).message}`);
    return process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const config = configOrExit();
  const { url, stop } = await start(config).catch((error: Error) => {
    console.error(`koa-gateway: ${error.message}`);
    return process.exit(1);
  });
  console.log(`koa-gateway listening on ${url} -> ${config.upstreamUrl}`);
  console.log(`OpenAI base URL: ${url}/v1 (max ${config.maxConcurrency} requests upstream at once)`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      stop().then(() => process.exit(0));
    });
  }
}

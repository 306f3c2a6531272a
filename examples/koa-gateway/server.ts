// A Koa gateway to an OpenAI-compatible server (vLLM, Ollama, any OpenAI-style server), with
// llm-scheduler deciding which request goes upstream next. Run: UPSTREAM_URL=http://127.0.0.1:8000 pnpm start
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import Router from "@koa/router";
import {
  type Access,
  ADMIN_CHALLENGE,
  accessFor,
  bodyRefusal,
  configFrom,
  generatedKeyLines,
  isAdminPath,
  type KeyEntry,
  type ProxyConfig,
  schedulerOptionsOf,
} from "@llm-scheduler/adapter-kit/env-gateway";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { lowerOnlyPriority } from "@llm-scheduler/core/kit";
import { createDashboard } from "@llm-scheduler/dashboard";
import { toKoaMiddleware } from "@llm-scheduler/dashboard/node";
import { type LlmSchedulerState, schedulerMiddleware } from "@llm-scheduler/koa";
import { collectMetrics } from "@llm-scheduler/prometheus";
import Koa, { type Context, type Next } from "koa";
import { Registry } from "prom-client";

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

/** Finds who the bearer key belongs to, or answers 401; refuses a body it should not read (411, 413). */
function authenticate(config: ProxyConfig, access: Access) {
  return async function authenticate(ctx: Context & { state: State }, next: Next): Promise<void> {
    const refusal = bodyRefusal(
      ctx.get("content-length") || undefined,
      ctx.get("transfer-encoding") || undefined,
      config.maxBodyBytes,
    );
    if (refusal !== undefined) {
      return fail(ctx, refusal.status, refusal.message, "invalid_request_error", refusal.code);
    }
    const entry = await access.caller(ctx.get("authorization"));
    if (typeof entry === "string") return fail(ctx, 401, entry, "invalid_request_error", "invalid_api_key");
    ctx.state.key = entry;
    await next();
  };
}

/** Lets only the admin key reach `/metrics`, `/metrics.json` and `/dashboard`; 401 otherwise. */
function adminOnly(access: Access) {
  return async function adminOnly(ctx: Context, next: Next): Promise<void> {
    if (isAdminPath(ctx.path) && !(await access.admin(ctx.get("authorization")))) {
      ctx.set("www-authenticate", ADMIN_CHALLENGE);
      const message = "This path needs the admin key (Authorization: Bearer <ADMIN_KEY>)";
      return fail(ctx, 401, message, "invalid_request_error", "invalid_api_key");
    }
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
  const access = accessFor(config, scheduler); // refuses a key whose priority the scheduler lacks
  const app = new Koa<State>();
  app.silent = true; // answers say what went wrong; a client that left is not an error to log
  app.use(adminOnly(access)); // before every route: no path spelling reaches them without the key
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
  router.get("/v1/models", authenticate(config, access), relay(config));
  const limiter = schedulerMiddleware({
    scheduler,
    tenant: (ctx) => (ctx.state as State).key.tenant,
    defaultMaxTokens: config.defaultMaxTokens, // charged up front: this gateway never parses the body
    // The key decides the priority; an `x-priority` header may only lower it (e.g. to "batch").
    priority: (ctx) =>
      lowerOnlyPriority(scheduler.options, ctx.get("x-priority"), (ctx.state as State).key.priority),
  });
  router.post(GENERATION_ROUTES, authenticate(config, access), limiter, relay(config));
  // The live page at /dashboard, for the admin key only (a browser asks for it: any user name).
  const authorize = (request: Request) => access.admin(request.headers.get("authorization"));
  app.use(toKoaMiddleware(createDashboard({ scheduler, authorize })));
  app.use(router.routes()).use(router.allowedMethods());
  return app;
}

/** Starts the gateway; resolves with its URL and a function that stops it. */
export async function start(config: ProxyConfig) {
  const scheduler = createScheduler(schedulerOptionsOf(config));
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
  for (const line of generatedKeyLines(config)) console.log(line);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      stop().then(() => process.exit(0));
    });
  }
}

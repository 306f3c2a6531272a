// The gateway itself: web standards only, so the same app runs on Node, Bun, Deno and Cloudflare Workers.

import {
  type Access,
  ADMIN_CHALLENGE,
  accessFor,
  bodyRefusal,
  errorBody,
  isAdminPath,
  type KeyEntry,
  type ProxyConfig,
  schedulerOptionsOf,
} from "@llm-scheduler/adapter-kit/env-gateway";
import type { ServedBatches } from "@llm-scheduler/batches";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { lowerOnlyPriority } from "@llm-scheduler/core/kit";
import { createDashboard } from "@llm-scheduler/dashboard";
import { type LlmSchedulerVariables, schedulerMiddleware } from "@llm-scheduler/hono";
import { type Context, Hono } from "hono";
import { createMiddleware } from "hono/factory";

const GENERATION_ROUTES = ["/v1/chat/completions", "/v1/completions", "/v1/embeddings"];
/** Response headers about one hop, not the content; the runtime's server sets its own. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "date"]);

/** The app's context: the scheduler's slot and the caller's key entry. */
export interface GatewayEnv {
  Variables: LlmSchedulerVariables & { key: KeyEntry };
}

/** An OpenAI-style error response, as the official clients expect it. */
function failure(
  status: 401 | 411 | 413 | 502,
  message: string,
  type: string,
  code: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(errorBody(message, type, code), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

const accesses = new WeakMap<ProxyConfig, Access>();

/**
 * The one {@link Access} of a configuration (its key digests made once): who callers are, for the
 * generation routes, the admin paths and the batch routes alike.
 */
export function accessOf(config: ProxyConfig, scheduler: Scheduler): Access {
  let access = accesses.get(config);
  if (access === undefined) {
    access = accessFor(config, scheduler); // refuses a key whose priority the scheduler lacks
    accesses.set(config, access);
  }
  return access;
}

/** Finds who the bearer key belongs to, or answers 401; refuses a body it should not read (411, 413). */
function authenticate(config: ProxyConfig, access: Access) {
  return createMiddleware<GatewayEnv>(async (c, next) => {
    const header = (name: string) => c.req.header(name);
    const refusal = bodyRefusal(header("content-length"), header("transfer-encoding"), config.maxBodyBytes);
    if (refusal !== undefined) {
      return failure(refusal.status, refusal.message, "invalid_request_error", refusal.code);
    }
    const entry = await access.caller(header("authorization"));
    if (typeof entry === "string") return failure(401, entry, "invalid_request_error", "invalid_api_key");
    c.set("key", entry);
    await next();
  });
}

/** Lets only the admin key reach `/metrics`, `/metrics.json` and `/dashboard`; 401 otherwise. */
function adminOnly(access: Access) {
  return createMiddleware<GatewayEnv>(async (c, next) => {
    if (isAdminPath(c.req.path) && !(await access.admin(c.req.header("authorization")))) {
      const message = "This path needs the admin key (Authorization: Bearer <ADMIN_KEY>)";
      return failure(401, message, "invalid_request_error", "invalid_api_key", {
        "www-authenticate": ADMIN_CHALLENGE,
      });
    }
    await next();
  });
}

/** Sends the request upstream and streams the answer back; 502 JSON when the upstream is unreachable. */
async function relay(c: Context<GatewayEnv>, config: ProxyConfig, signal: AbortSignal): Promise<Response> {
  const request = c.req.raw;
  const headers: Record<string, string> = {
    "content-type": request.headers.get("content-type") ?? "application/json",
    accept: request.headers.get("accept") ?? "*/*",
    "accept-encoding": "identity", // fetch would decode gzip; ask for the bytes as they are
  };
  if (config.upstreamKey !== undefined) headers.authorization = `Bearer ${config.upstreamKey}`;
  let upstream: Response;
  try {
    upstream = await fetch(`${config.upstreamUrl}${new URL(request.url).pathname}`, {
      method: request.method,
      headers,
      body: request.method === "GET" ? undefined : await request.arrayBuffer(),
      signal,
    });
  } catch (error) {
    const message = `The upstream server could not be reached: ${(error as Error).message}`;
    return failure(502, message, "upstream_error", "bad_gateway");
  }
  const passed = new Headers();
  upstream.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name)) passed.set(name, value);
  });
  return new Response(upstream.body, { status: upstream.status, headers: passed });
}

/**
 * Answers `GET /metrics` in Prometheus text format. `server.ts` builds it from prom-client on Node; a
 * runtime without prom-client may leave it out and get `scheduler.metrics()` as JSON there instead.
 */
export type MetricsResponder = () => Promise<Response>;

/**
 * The Hono app: generation routes wait in the scheduler, then go upstream; the answer streams back and
 * the slot is held until its last chunk has been sent. `/v1/models` passes through; `/health`, `/metrics`
 * (Prometheus text with `metrics`, else JSON), `/metrics.json`, `/dashboard/` (these three for the admin
 * key only). With `batches`, OpenAI's Files and Batches routes too. The default scheduler takes the
 * config's caps (`schedulerOptionsOf`); a scheduler passed in should too.
 */
export function createApp(
  config: ProxyConfig,
  scheduler: Scheduler = createScheduler(schedulerOptionsOf(config)),
  batches?: ServedBatches,
  metrics?: MetricsResponder,
): Hono<GatewayEnv> {
  const access = accessOf(config, scheduler);
  const app = new Hono<GatewayEnv>();
  app.use(adminOnly(access)); // before every route: no path spelling reaches them without the key
  app.get("/health", (c) => c.json({ status: "ok" }));
  app.get("/metrics", (c) => (metrics === undefined ? c.json(scheduler.metrics()) : metrics()));
  app.get("/metrics.json", (c) => c.json(scheduler.metrics())); // the same path as the Node examples
  // The live page, for the admin key only (a browser asks for it: any user name, the key as password).
  const authorize = (request: Request) => access.admin(request.headers.get("authorization"));
  const dashboard = createDashboard({ scheduler, batches, authorize }); // batches shown when given
  app.all("/dashboard/*", (c) => dashboard(c.req.raw));
  app.get("/v1/models", authenticate(config, access), (c) => relay(c, config, c.req.raw.signal));
  if (batches !== undefined) {
    // OpenAI's Batch API, outside the scheduler middleware: an upload or a poll takes no upstream slot;
    // each batch item goes through the scheduler on its own (its `tenant` hook checks the key).
    const serve = (c: Context) => batches.fetch(c.req.raw);
    app
      .all("/v1/files", serve)
      .all("/v1/files/*", serve)
      .all("/v1/batches", serve)
      .all("/v1/batches/*", serve);
  }
  const limiter = schedulerMiddleware({
    scheduler,
    tenant: (c) => (c as Context<GatewayEnv>).get("key").tenant,
    defaultMaxTokens: config.defaultMaxTokens,
    // The key decides the priority; an `x-priority` header may only lower it (e.g. to "batch").
    priority: (c) =>
      lowerOnlyPriority(
        scheduler.options,
        c.req.header("x-priority"),
        (c as Context<GatewayEnv>).get("key").priority,
      ),
  });
  for (const route of GENERATION_ROUTES) {
    // Aborts when the client leaves (or on run timeout): the upstream call stops, the slot is freed.
    app.post(route, authenticate(config, access), limiter, (c) =>
      relay(c, config, c.get("llmScheduler").signal),
    );
  }
  return app;
}

// The gateway itself: web standards only, so the same app runs on Node, Bun, Deno and Cloudflare Workers.

import type { Batches } from "@llm-scheduler/batches";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { lowerOnlyPriority } from "@llm-scheduler/core/kit";
import { createDashboard } from "@llm-scheduler/dashboard";
import { type LlmSchedulerVariables, schedulerMiddleware } from "@llm-scheduler/hono";
import { type Context, Hono } from "hono";
import { createMiddleware } from "hono/factory";
import type { KeyEntry, ProxyConfig } from "./config.js";

const GENERATION_ROUTES = ["/v1/chat/completions", "/v1/completions", "/v1/embeddings"];
/** Response headers about one hop, not the content; the runtime's server sets its own. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "date"]);

/** The app's context: the scheduler's slot and the caller's key entry. */
export interface GatewayEnv {
  Variables: LlmSchedulerVariables & { key: KeyEntry };
}

/** An OpenAI-style error response, as the official clients expect it. */
function failure(status: 401 | 502, message: string, type: string, code: string): Response {
  const body = JSON.stringify({ error: { message, type, code, param: null } });
  return new Response(body, { status, headers: { "content-type": "application/json; charset=utf-8" } });
}

/** A short, non-reversible tenant name for an API key (Web Crypto): never put raw keys in metrics. */
async function fingerprint(key: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  const hex = [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `key-${hex.slice(0, 10)}`;
}

/**
 * Who a bearer key belongs to: its entry in the key table, or, with no table, its own tenant (a
 * fingerprint) at the default priority; `undefined` for a missing or unknown key.
 */
export async function keyEntryOf(
  config: ProxyConfig,
  scheduler: Scheduler,
  authorization: string | undefined | null,
): Promise<KeyEntry | undefined> {
  const key = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  if (key === undefined) return undefined;
  const entry = config.keys.get(key);
  if (entry !== undefined || config.keys.size > 0) return entry;
  return { tenant: await fingerprint(key), priority: scheduler.options.defaultPriority };
}

/** Finds who the bearer key belongs to; with no key table, any key is its own tenant (a fingerprint). */
function authenticate(config: ProxyConfig, scheduler: Scheduler) {
  return createMiddleware<GatewayEnv>(async (c, next) => {
    const key = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (key === undefined) {
      return failure(
        401,
        "Missing API key (Authorization: Bearer <key>)",
        "invalid_request_error",
        "invalid_api_key",
      );
    }
    const entry = config.keys.get(key);
    if (entry === undefined && config.keys.size > 0) {
      return failure(401, "Unknown API key", "invalid_request_error", "invalid_api_key");
    }
    c.set("key", entry ?? { tenant: await fingerprint(key), priority: scheduler.options.defaultPriority });
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
 * (Prometheus text with `metrics`, else JSON), `/metrics.json`, `/dashboard/`. With `batches`, OpenAI's
 * Files and Batches routes too.
 */
export function createApp(
  config: ProxyConfig,
  scheduler: Scheduler = createScheduler(),
  batches?: Batches,
  metrics?: MetricsResponder,
): Hono<GatewayEnv> {
  for (const [key, entry] of config.keys) {
    if (!scheduler.options.priorityByName.has(entry.priority)) {
      throw new TypeError(`API key ${key.slice(0, 6)}… asks for an unknown priority \`${entry.priority}\``);
    }
  }
  const app = new Hono<GatewayEnv>();
  app.get("/health", (c) => c.json({ status: "ok" }));
  app.get("/metrics", (c) => (metrics === undefined ? c.json(scheduler.metrics()) : metrics()));
  app.get("/metrics.json", (c) => c.json(scheduler.metrics())); // the same path as the Node examples
  const dashboard = createDashboard({ scheduler }); // read-only; see the dashboard's README for controls
  app.all("/dashboard/*", (c) => dashboard(c.req.raw));
  app.get("/v1/models", authenticate(config, scheduler), (c) => relay(c, config, c.req.raw.signal));
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
    app.post(route, authenticate(config, scheduler), limiter, (c) =>
      relay(c, config, c.get("llmScheduler").signal),
    );
  }
  return app;
}

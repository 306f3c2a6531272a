// An OpenAI-compatible proxy in front of vLLM, Ollama or any OpenAI-style server, with llm-scheduler
// deciding which request goes upstream next. Run: UPSTREAM_URL=http://127.0.0.1:8000 pnpm start
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import type { Batches } from "@llm-scheduler/batches";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { lowerOnlyPriority } from "@llm-scheduler/core/kit";
import { createDashboard } from "@llm-scheduler/dashboard";
import { toNodeHandler } from "@llm-scheduler/dashboard/node";
import { schedulerMiddleware } from "@llm-scheduler/express";
import { collectMetrics } from "@llm-scheduler/prometheus";
import express, { type NextFunction, type Request, type Response } from "express";
import { Registry } from "prom-client";
import { mountBatches } from "./batches.js";
import { configFrom, type KeyEntry, type ProxyConfig } from "./config.js";
import { forward } from "./proxy.js";

const GENERATION_ROUTES = ["/v1/chat/completions", "/v1/completions", "/v1/embeddings"];

function unauthorized(res: Response, message: string): void {
  res
    .status(401)
    .json({ error: { message, type: "invalid_request_error", code: "invalid_api_key", param: null } });
}

/** Who a bearer key belongs to; with no key table, any key is its own tenant. A string is the refusal. */
function entryOf(
  config: ProxyConfig,
  scheduler: Scheduler,
  authorization: string | undefined,
): KeyEntry | string {
  const key = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  if (key === undefined) return "Missing API key (Authorization: Bearer <key>)";
  const entry: KeyEntry | undefined = config.keys.get(key);
  if (entry === undefined && config.keys.size > 0) return "Unknown API key";
  // Never put a raw key in metrics or logs: an unlisted key becomes a short fingerprint.
  return (
    entry ?? {
      tenant: `key-${createHash("sha256").update(key).digest("hex").slice(0, 10)}`,
      priority: scheduler.options.defaultPriority,
    }
  );
}

/** Finds who the bearer key belongs to, or answers 401. */
function authenticate(config: ProxyConfig, scheduler: Scheduler) {
  return function authenticate(req: Request, res: Response, next: NextFunction): void {
    const entry = entryOf(config, scheduler, req.get("authorization"));
    if (typeof entry === "string") {
      unauthorized(res, entry);
      return;
    }
    res.locals.key = entry;
    next();
  };
}

const keyOf = (req: Request): KeyEntry => req.res!.locals.key as KeyEntry;

/**
 * The Express app: scheduled generation routes, OpenAI's Batch API (`/v1/files`, `/v1/batches`),
 * pass-through model list, health and metrics.
 */
export function createApp(
  config: ProxyConfig,
  scheduler: Scheduler,
): { app: express.Express; batches: Batches } {
  for (const [key, entry] of config.keys) {
    if (!scheduler.options.priorityByName.has(entry.priority)) {
      throw new TypeError(`API key ${key.slice(0, 6)}… asks for an unknown priority \`${entry.priority}\``);
    }
  }
  const app = express();
  const registry = new Registry();
  collectMetrics(scheduler, { registry, tenantLabel: { top: 20 } });
  app.get("/health", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/metrics", async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics()); // Prometheus text format
  });
  app.get("/metrics.json", (_req, res) => {
    res.json(scheduler.metrics());
  });
  app.use(toNodeHandler(createDashboard({ scheduler }))); // a read-only live page at /dashboard
  app.get("/v1/models", authenticate(config, scheduler), (req, res) => {
    const controller = new AbortController();
    res.once("close", () => controller.abort());
    void forward(req, res, config.upstreamUrl, config.upstreamKey, controller.signal);
  });
  const limiter = schedulerMiddleware({
    scheduler,
    tenant: (req) => keyOf(req).tenant,
    // The key decides the priority; an `x-priority` header may only lower it (e.g. to "batch").
    priority: (req) => lowerOnlyPriority(scheduler.options, req.get("x-priority"), keyOf(req).priority),
  });
  app.post(GENERATION_ROUTES, authenticate(config, scheduler), limiter, (req, res) => {
    // Aborts when the client disconnects: the upstream request is cancelled and its slot freed.
    const { signal } = req.llmScheduler!;
    void forward(req, res, config.upstreamUrl, config.upstreamKey, signal);
  });
  const batches = mountBatches(app, config, scheduler, (authorization) => {
    const entry = entryOf(config, scheduler, authorization ?? undefined);
    return typeof entry === "string" ? undefined : entry.tenant;
  });
  return { app, batches };
}

/** Starts the proxy; resolves with its URL and a function that stops it. */
export async function start(config: ProxyConfig) {
  const scheduler = createScheduler({ maxConcurrency: config.maxConcurrency });
  const { app, batches } = createApp(config, scheduler);
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const { port } = server.address() as AddressInfo;
  const stop = async (): Promise<void> => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await batches.close();
    await scheduler.close({ drain: true, timeoutMs: 10_000 });
  };
  return { url: `http://${config.host}:${port}`, scheduler, stop };
}

/** The configuration, or a one-line explanation and exit code 1 (no stack trace for a typo). */
function configOrExit(): ProxyConfig {
  try {
    return configFrom(process.env);
  } catch (error) {
    console.error(`express-openai-proxy: ${(error as Error).message}`);
    return process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const config = configOrExit();
  const { url, stop } = await start(config).catch((error: Error) => {
    console.error(`express-openai-proxy: ${error.message}`);
    return process.exit(1);
  });
  console.log(`express-openai-proxy listening on ${url} -> ${config.upstreamUrl}`);
  console.log(`OpenAI base URL: ${url}/v1 (max ${config.maxConcurrency} requests upstream at once)`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      stop().then(() => process.exit(0));
    });
  }
}

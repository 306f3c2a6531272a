// An OpenAI-compatible proxy in front of vLLM, Ollama or any OpenAI-style server, with llm-scheduler
// deciding which request goes upstream next. Run: UPSTREAM_URL=http://127.0.0.1:8000 pnpm start
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import {
  type Access,
  ADMIN_CHALLENGE,
  accessFor,
  bodyRefusal,
  configFrom,
  errorBody,
  generatedKeyLines,
  isAdminPath,
  type KeyEntry,
  type ProxyConfig,
  schedulerOptionsOf,
} from "@llm-scheduler/adapter-kit/env-gateway";
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
import { forward } from "./proxy.js";

const GENERATION_ROUTES = ["/v1/chat/completions", "/v1/completions", "/v1/embeddings"];

function refuse(res: Response, status: number, message: string, code: string, headers = {}): void {
  res
    .status(status)
    .set(headers)
    .type("application/json")
    .send(errorBody(message, "invalid_request_error", code));
}

/** Finds who the bearer key belongs to, or answers 401; refuses a body it should not read (411, 413). */
function authenticate(config: ProxyConfig, access: Access) {
  return function authenticate(req: Request, res: Response, next: NextFunction): void {
    const refusal = bodyRefusal(req.get("content-length"), req.get("transfer-encoding"), config.maxBodyBytes);
    if (refusal !== undefined) {
      refuse(res, refusal.status, refusal.message, refusal.code);
      return;
    }
    access.caller(req.get("authorization")).then((entry) => {
      if (typeof entry === "string") return refuse(res, 401, entry, "invalid_api_key");
      res.locals.key = entry;
      next();
    }, next);
  };
}

/** Lets only the admin key reach `/metrics`, `/metrics.json` and `/dashboard`; 401 otherwise. */
function adminOnly(access: Access) {
  return function adminOnly(req: Request, res: Response, next: NextFunction): void {
    if (!isAdminPath(req.path)) {
      next();
      return;
    }
    access.admin(req.get("authorization")).then((admin) => {
      if (admin) return next();
      const message = "This path needs the admin key (Authorization: Bearer <ADMIN_KEY>)";
      refuse(res, 401, message, "invalid_api_key", { "www-authenticate": ADMIN_CHALLENGE });
    }, next);
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
  const access = accessFor(config, scheduler); // refuses a key whose priority the scheduler lacks
  const app = express();
  app.use(adminOnly(access)); // before every route: no path spelling reaches them without the key
  // Batches and files belong to a configured tenant; the `anonymous` pool may not own any.
  const batches = mountBatches(app, config, scheduler, (authorization) => access.owner(authorization));
  const registry = new Registry();
  collectMetrics(scheduler, { registry, batches, tenantLabel: { top: 20 } });
  app.get("/health", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/metrics", async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics()); // Prometheus text format
  });
  app.get("/metrics.json", (_req, res) => {
    res.json(scheduler.metrics());
  });
  // The live page at /dashboard, for the admin key only (a browser asks for it: any user name).
  const authorize = (request: globalThis.Request) => access.admin(request.headers.get("authorization"));
  app.use(toNodeHandler(createDashboard({ scheduler, batches, authorize })));
  app.get("/v1/models", authenticate(config, access), (req, res) => {
    const controller = new AbortController();
    res.once("close", () => controller.abort());
    void forward(req, res, config.upstreamUrl, config.upstreamKey, controller.signal);
  });
  const limiter = schedulerMiddleware({
    scheduler,
    tenant: (req) => keyOf(req).tenant,
    defaultMaxTokens: config.defaultMaxTokens, // charged up front: this proxy never parses the body
    // The key decides the priority; an `x-priority` header may only lower it (e.g. to "batch").
    priority: (req) => lowerOnlyPriority(scheduler.options, req.get("x-priority"), keyOf(req).priority),
  });
  app.post(GENERATION_ROUTES, authenticate(config, access), limiter, (req, res) => {
    // Aborts when the client disconnects: the upstream request is cancelled and its slot freed.
    const { signal } = req.llmScheduler!;
    void forward(req, res, config.upstreamUrl, config.upstreamKey, signal);
  });
  return { app, batches };
}

/** Starts the proxy; resolves with its URL and a function that stops it. */
export async function start(config: ProxyConfig) {
  const scheduler = createScheduler(schedulerOptionsOf(config));
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
  for (const line of generatedKeyLines(config)) console.log(line);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      stop().then(() => process.exit(0));
    });
  }
}

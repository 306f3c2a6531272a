// An OpenAI-compatible proxy in front of vLLM, Ollama or any OpenAI-style server, with llm-scheduler
// deciding which request goes upstream next. Run: UPSTREAM_URL=http://127.0.0.1:8000 pnpm start
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { createScheduler, lowerOnlyPriority, type Scheduler } from "@llm-scheduler/core";
import { createDashboard } from "@llm-scheduler/dashboard";
import { toNodeHandler } from "@llm-scheduler/dashboard/node";
import { schedulerMiddleware } from "@llm-scheduler/express";
import express, { type NextFunction, type Request, type Response } from "express";
import { configFrom, type KeyEntry, type ProxyConfig } from "./config.js";
import { forward } from "./proxy.js";

const GENERATION_ROUTES = ["/v1/chat/completions", "/v1/completions", "/v1/embeddings"];

function unauthorized(res: Response, message: string): void {
  res.status(401).json({ error: { message, type: "invalid_request_error", code: "invalid_api_key" } });
}

/** Finds who the bearer key belongs to; with no key table, any key is its own tenant. */
function authenticate(config: ProxyConfig, scheduler: Scheduler) {
  return function authenticate(req: Request, res: Response, next: NextFunction): void {
    const key = /^Bearer\s+(\S+)$/i.exec(req.get("authorization") ?? "")?.[1];
    if (key === undefined) {
      unauthorized(res, "Missing API key (Authorization: Bearer <key>)");
      return;
    }
    let entry: KeyEntry | undefined = config.keys.get(key);
    if (entry === undefined && config.keys.size > 0) {
      unauthorized(res, "Unknown API key");
      return;
    }
    // Never put a raw key in metrics or logs: an unlisted key becomes a short fingerprint.
    entry ??= {
      tenant: `key-${createHash("sha256").update(key).digest("hex").slice(0, 10)}`,
      priority: scheduler.options.defaultPriority,
    };
    res.locals.key = entry;
    next();
  };
}

const entryOf = (req: Request): KeyEntry => req.res!.locals.key as KeyEntry;

/** The Express app: scheduled generation routes, pass-through model list, health and metrics. */
export function createApp(config: ProxyConfig, scheduler: Scheduler): express.Express {
  for (const [key, entry] of config.keys) {
    if (!scheduler.options.priorityByName.has(entry.priority)) {
      throw new TypeError(`API key ${key.slice(0, 6)}… asks for an unknown priority \`${entry.priority}\``);
    }
  }
  const app = express();
  app.get("/health", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/metrics", (_req, res) => {
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
    tenant: (req) => entryOf(req).tenant,
    // The key decides the priority; an `x-priority` header may only lower it (e.g. to "batch").
    priority: (req) => lowerOnlyPriority(scheduler.options, req.get("x-priority"), entryOf(req).priority),
  });
  app.post(GENERATION_ROUTES, authenticate(config, scheduler), limiter, (req, res) => {
    // Aborts when the client disconnects: the upstream request is cancelled and its slot freed.
    const { signal } = req.llmScheduler!;
    void forward(req, res, config.upstreamUrl, config.upstreamKey, signal);
  });
  return app;
}

/** Starts the proxy; resolves with its URL and a function that stops it. */
export async function start(config: ProxyConfig) {
  const scheduler = createScheduler({ maxConcurrency: config.maxConcurrency });
  const server = createServer(createApp(config, scheduler));
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

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const config = configFrom(process.env);
  const { url, stop } = await start(config);
  console.log(`express-openai-proxy listening on ${url} -> ${config.upstreamUrl}`);
  console.log(`OpenAI base URL: ${url}/v1 (max ${config.maxConcurrency} requests upstream at once)`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      stop().then(() => process.exit(0));
    });
  }
}

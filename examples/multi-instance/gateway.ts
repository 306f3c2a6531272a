// One gateway instance: Express in front of an LLM server, scheduled through Redis so that every
// instance sharing REDIS_URL and the key prefix obeys one global limit and one global order.

import {
  Access,
  ADMIN_CHALLENGE,
  errorBody,
  isAdminPath,
  type KeyEntry,
  parseKeys,
} from "@llm-scheduler/adapter-kit/env-gateway";
import { createScheduler } from "@llm-scheduler/core";
import { lowerOnlyPriority } from "@llm-scheduler/core/kit";
import { createDashboard } from "@llm-scheduler/dashboard";
import { toNodeHandler } from "@llm-scheduler/dashboard/node";
import { schedulerMiddleware } from "@llm-scheduler/express";
import { collectMetrics } from "@llm-scheduler/prometheus";
import { RedisStore } from "@llm-scheduler/redis";
import express, { type NextFunction, type Request, type Response } from "express";
import { Registry } from "prom-client";

const name = process.env.NAME ?? "gateway";
const upstream = process.env.UPSTREAM_URL ?? "http://127.0.0.1:8000";

const maxConcurrency = Number(process.env.MAX_CONCURRENCY ?? 4); // for all instances together

/** Who may call: `API_KEYS` (key:tenant:priority, …) and `ADMIN_KEY` for the admin paths; main.ts sets both. */
function accessOrExit(): Access {
  try {
    const keys = parseKeys(process.env.API_KEYS);
    const adminKey = process.env.ADMIN_KEY ?? "";
    if (keys.size === 0 || adminKey.length < 16) {
      throw new TypeError(
        "Expected `API_KEYS` and an `ADMIN_KEY` of 16 characters or more (main.ts sets both)",
      );
    }
    return new Access({ keys, adminKey, unknownKeys: "refuse", anonymousPriority: "interactive" });
  } catch (error) {
    console.error(`[${name}] ${(error as Error).message}`);
    return process.exit(1);
  }
}
const access = accessOrExit();

function refuse(res: Response, message: string, headers: Record<string, string> = {}): void {
  const body = errorBody(message, "invalid_request_error", "invalid_api_key");
  res.status(401).set(headers).type("application/json").send(body);
}

/** `/metrics`, `/metrics.json`, `/dashboard` and `/status` answer the admin key only. */
function adminOnly(req: Request, res: Response, next: NextFunction): void {
  if (!isAdminPath(req.path) && !req.path.toLowerCase().startsWith("/status")) {
    next();
    return;
  }
  access.admin(req.get("authorization")).then((admin) => {
    if (admin) next();
    else
      refuse(res, "This path needs the admin key (Authorization: Bearer <ADMIN_KEY>)", {
        "www-authenticate": ADMIN_CHALLENGE,
      });
  }, next);
}

/** Finds who the bearer key belongs to, or answers 401. */
function authenticate(req: Request, res: Response, next: NextFunction): void {
  access.caller(req.get("authorization")).then((entry) => {
    if (typeof entry === "string") return refuse(res, entry);
    res.locals.key = entry;
    next();
  }, next);
}
const keyOf = (req: Request): KeyEntry => req.res!.locals.key as KeyEntry;
const expectedInstances = 2;

// What the store went through, for GET /status: how often it fell back to local mode, and the errors it
// handled (each message printed once; a reconnecting client repeats the same one many times).
const seen = { fallbacks: 0, errors: 0, lastError: "" };
const printed = new Set<string>();

const store = new RedisStore({
  url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
  prefix: "llm-demo:",
  leaseMs: 10_000,
  onStoreError: "local", // if Redis goes away, keep serving under maxConcurrency / expectedInstances
  expectedInstances,
  onError: (error) => {
    const message = error instanceof Error ? error.message : String(error);
    seen.errors++;
    seen.lastError = message;
    if (store.status !== "connected" || printed.has(message)) return; // the status line says it
    printed.add(message);
    console.error(`[${name}] store: ${message} (printed once; GET /status counts them)`);
  },
  onStatusChange: (status) => {
    if (status === "local") {
      seen.fallbacks++;
      const share = Math.max(1, Math.floor(maxConcurrency / expectedInstances));
      console.error(
        `[${name}] Redis unreachable (${seen.lastError || "no connection"}): local mode, ` +
          `at most ${share} of the ${maxConcurrency} slots here (${maxConcurrency} / ${expectedInstances} instances)`,
      );
    } else if (status === "connected" && seen.fallbacks > 0) {
      console.error(`[${name}] Redis is back: one global limit again`);
    }
  },
});
const scheduler = createScheduler({
  maxConcurrency,
  priorities: {
    interactive: { weight: 5, queueTimeoutMs: 30_000 },
    batch: { weight: 1, queueTimeoutMs: 600_000, maxWaitMs: 60_000 },
  },
  store,
});

const app = express();
app.use(adminOnly); // before every route: no path spelling reaches them without the key
// The key decides tenant and priority; a client may lower its priority with `x-priority: batch`.
app.use(
  "/v1/chat/completions",
  authenticate,
  schedulerMiddleware({
    scheduler,
    tenant: (req) => keyOf(req).tenant,
    priority: (req) => lowerOnlyPriority(scheduler.options, req.get("x-priority"), keyOf(req).priority),
  }),
);
app.post("/v1/chat/completions", express.json(), async (req, res) => {
  const { signal } = req.llmScheduler!; // aborts when the client leaves: the upstream call ends with it
  try {
    const answer = await fetch(`${upstream}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(req.body),
      signal,
    });
    res
      .status(answer.status)
      .type("application/json")
      .send(await answer.text());
  } catch (error) {
    // End the response in every case: that is what frees the slot at once (else it waits for the grace).
    if (signal.aborted || res.headersSent) res.end();
    else
      res.status(502).json({
        error: {
          message: "The upstream is unreachable",
          type: "upstream_error",
          code: "upstream_unreachable",
          param: null,
        },
      });
    if (!signal.aborted)
      console.error(`[${name}] upstream: ${error instanceof Error ? error.message : error}`);
  }
});
// Counters and histograms count this instance's requests (Prometheus sums the instances); `running` and
// `queued` are read from Redis, so they are global: `scope="global"` says so.
const registry = new Registry();
collectMetrics(scheduler, { registry, scope: "global" });
app.get("/metrics", async (_req, res) => {
  res.type(registry.contentType).send(await registry.metrics()); // Prometheus text format
});
app.get("/metrics.json", (_req, res) => {
  res.json(scheduler.metrics());
});
// The live page at /dashboard, for the admin key only (a browser asks for it: any user name).
const authorize = (request: globalThis.Request) => access.admin(request.headers.get("authorization"));
const dashboard = createDashboard({ scheduler, authorize });
app.use(toNodeHandler(dashboard));
app.get("/status", (_req, res) => {
  res.json({ store: store.status, ...seen });
});

const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  console.log(`READY ${typeof address === "object" && address !== null ? address.port : 0}`);
});

process.on("SIGTERM", async () => {
  server.close();
  dashboard.close();
  await scheduler.close({ drain: true, timeoutMs: 5_000 });
  await store.close();
  process.exit(0);
});

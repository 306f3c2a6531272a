// Node entry point of the Hono gateway. Run: UPSTREAM_URL=http://127.0.0.1:8000 pnpm start
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import {
  configFrom,
  generatedKeyLines,
  type ProxyConfig,
  schedulerOptionsOf,
} from "@llm-scheduler/adapter-kit/env-gateway";
import { type Batches, createBatches, openaiExecutor } from "@llm-scheduler/batches";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { collectMetrics } from "@llm-scheduler/prometheus";
import { Registry } from "prom-client";
import { accessOf, createApp, type MetricsResponder } from "./app.js";

/** `GET /metrics` in Prometheus text format, from prom-client (which needs Node's modules). */
function prometheus(scheduler: Scheduler, batches: Batches): MetricsResponder {
  const registry = new Registry();
  collectMetrics(scheduler, { registry, batches, tenantLabel: { top: 20 } });
  return async () =>
    new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });
}

/** The configuration and the app, or a one-line explanation and exit code 1 (no stack trace for a typo). */
function startup(): {
  config: ProxyConfig;
  scheduler: ReturnType<typeof createScheduler>;
  app: ReturnType<typeof createApp>;
  batches: Batches;
} {
  try {
    const config = configFrom(process.env);
    const scheduler = createScheduler(schedulerOptionsOf(config));
    // Batches and files belong to a configured tenant of the key table; the `anonymous` pool owns none.
    const access = accessOf(config, scheduler);
    const batches = createBatches({
      scheduler,
      execute: openaiExecutor({ baseURL: `${config.upstreamUrl}/v1`, apiKey: config.upstreamKey }),
      tenant: (request) => access.owner(request.headers.get("authorization")),
    });
    const app = createApp(config, scheduler, batches, prometheus(scheduler, batches));
    return { config, scheduler, app, batches };
  } catch (error) {
    console.error(`hono-gateway: ${(error as Error).message}`);
    return process.exit(1);
  }
}

const { config, scheduler, app, batches } = startup();
const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info: AddressInfo) => {
  const url = `http://${config.host}:${info.port}`;
  console.log(`hono-gateway listening on ${url} -> ${config.upstreamUrl}`);
  console.log(`OpenAI base URL: ${url}/v1 (max ${config.maxConcurrency} requests upstream at once)`);
  for (const line of generatedKeyLines(config)) console.log(line);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    void batches.close();
    scheduler.close({ drain: true, timeoutMs: 10_000 }).then(() => process.exit(0));
  });
}

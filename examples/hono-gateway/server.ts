// Node entry point of the Hono gateway. Run: UPSTREAM_URL=http://127.0.0.1:8000 pnpm start
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createBatches, openaiExecutor } from "@llm-scheduler/batches";
import { createScheduler } from "@llm-scheduler/core";
import { createApp, tenantOf } from "./app.js";

const upstreamUrl = (process.env.UPSTREAM_URL ?? "http://127.0.0.1:8000").replace(/\/+$/, "");
const scheduler = createScheduler({ maxConcurrency: Number(process.env.MAX_CONCURRENCY ?? 8) });
// Tenants see their own batches: the same key fingerprint as the generation routes.
const batches = createBatches({
  scheduler,
  execute: openaiExecutor({ baseURL: `${upstreamUrl}/v1`, apiKey: process.env.UPSTREAM_API_KEY }),
  tenant: (request) => {
    const authorization = request.headers.get("authorization");
    return authorization === null ? undefined : tenantOf(authorization);
  },
});
const app = createApp(upstreamUrl, scheduler, batches);
const hostname = process.env.HOST ?? "127.0.0.1";

const server = serve(
  { fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname },
  (info: AddressInfo) => {
    console.log(`hono-gateway listening on http://${hostname}:${info.port} -> ${upstreamUrl}`);
  },
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    void batches.close();
    scheduler.close({ drain: true, timeoutMs: 10_000 }).then(() => process.exit(0));
  });
}

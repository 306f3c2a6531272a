import { configFrom } from "@llm-scheduler/adapter-kit/env-gateway";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { collectMetrics } from "@llm-scheduler/prometheus";
import { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../examples/hono-gateway/app.js";

let scheduler: Scheduler;
const ADMIN_KEY = "sk-admin-hono-metrics";
/** `/metrics` answers the admin key only. */
const admin = { headers: { authorization: `Bearer ${ADMIN_KEY}` } };
beforeEach(() => {
  scheduler = createScheduler({ maxConcurrency: 3 });
});
afterEach(() => scheduler.close());

describe("examples/hono-gateway createApp's /metrics", () => {
  it("answers Prometheus text from the responder it is given (server.ts on Node)", async () => {
    const registry = new Registry();
    const collector = collectMetrics(scheduler, { registry });
    const metrics = async () =>
      new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });
    const app = createApp(configFrom({ ADMIN_KEY }), scheduler, undefined, metrics);
    await scheduler.run(() => "done");
    const response = await app.request("/metrics", admin);
    expect(response.headers.get("content-type")).toBe(registry.contentType);
    expect(await response.text()).toMatch(
      /^llm_scheduler_requests_total\{priority="interactive",outcome="completed"\} 1$/m,
    );
    collector.stop();
  });

  it("answers scheduler.metrics() as JSON where prom-client cannot run (no responder given)", async () => {
    const app = createApp(configFrom({ ADMIN_KEY }), scheduler);
    const response = await app.request("/metrics", admin);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ maxConcurrency: 3, running: 0 });
  });
});

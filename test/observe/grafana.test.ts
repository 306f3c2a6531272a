import { readFileSync } from "node:fs";
import { configFrom } from "@llm-scheduler/adapter-kit/env-gateway";
import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import { collectMetrics } from "@llm-scheduler/prometheus";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import OpenAI from "openai";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { start } from "../../examples/express-openai-proxy/server.js";
import { parseScrape, type Sample } from "./scrape.js";

interface Panel {
  readonly title: string;
  readonly targets: ReadonlyArray<{ readonly expr: string }>;
}
const dashboard = JSON.parse(
  readFileSync(new URL("../../examples/grafana/llm-scheduler.json", import.meta.url), "utf8"),
) as { panels: Panel[]; templating: { list: Array<{ query?: unknown }> } };

/** Every PromQL expression of the dashboard, its variables' queries included. */
function expressions(): string[] {
  const exprs = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
  for (const variable of dashboard.templating.list) {
    const query = (variable.query as { query?: string } | undefined)?.query;
    if (typeof query === "string") exprs.push(query);
  }
  return exprs;
}

/** Metric names an expression reads, and the labels it groups or filters them by (other than `le`, `instance`). */
function references(expr: string): { metrics: string[]; labels: string[] } {
  const metrics = [...expr.matchAll(/\bllm_scheduler_[a-z_]+\b/g)].map((match) => match[0]);
  const grouped = [...expr.matchAll(/by \(([^)]*)\)/g)].flatMap((match) => match[1]!.split(/,\s*/));
  const matched = [...expr.matchAll(/([a-z_]+)(?:=~|!~|!=|=)"/g)].map((match) => match[1]!);
  const labels = [...grouped, ...matched].filter((label) => label !== "le" && label !== "instance");
  return { metrics, labels };
}

/** A scrape of a scheduler with a wait target, after one preemption (on a virtual clock). */
async function preemptingScrape(): Promise<Sample[]> {
  const clock = new VirtualClock();
  const scheduler = createScheduler({
    clock,
    maxConcurrency: 1,
    priorities: { interactive: { preempts: ["batch"], targetWaitMs: 500 }, batch: {} },
  });
  const registry = new Registry();
  collectMetrics(scheduler, { registry });
  let runs = 0;
  const batch = scheduler.run(
    ({ signal }) =>
      new Promise((resolve, reject) => {
        runs++;
        if (runs === 1) signal.addEventListener("abort", () => reject(signal.reason));
        else resolve("done");
      }),
    { priority: "batch" },
  );
  clock.advance(1_000);
  await scheduler.run(() => "chat", { priority: "interactive" });
  await batch;
  const scrape = parseScrape(await registry.metrics());
  await scheduler.close();
  return scrape;
}

const ADMIN_KEY = "sk-admin-grafana-test";
/** The example serves its metrics to the admin key only. */
const admin = { headers: { authorization: `Bearer ${ADMIN_KEY}` } };

describe("the Grafana dashboard in examples/grafana", () => {
  let upstream: Upstream | undefined;
  let proxy: Awaited<ReturnType<typeof start>> | undefined;
  let samples: Sample[] = [];
  let contentType: string | null = null;

  beforeAll(async () => {
    upstream = await startUpstream({ port: 0, parallel: 2, ttftMs: 5, tokenMs: 2, slowdown: 0 });
    proxy = await start(
      configFrom({
        UPSTREAM_URL: upstream.url,
        PORT: "0",
        MAX_CONCURRENCY: "2",
        API_KEYS: "sk-chat:chat-app:interactive",
        ADMIN_KEY,
      }),
    );
    const client = new OpenAI({
      baseURL: `${proxy.url}/v1`,
      apiKey: "sk-chat",
      maxRetries: 0,
      timeout: 20_000,
    });
    const stream = await client.chat.completions.create({
      model: "sim-model",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 4,
      stream: true,
    });
    for await (const _chunk of stream);
    await proxy.scheduler.onIdle();
    await fetch(`${proxy.url}/metrics`, admin); // a first scrape ranks the busiest tenants
    await client.chat.completions.create({ model: "sim-model", messages: [{ role: "user", content: "Hi" }] });
    await proxy.scheduler.onIdle();
    const response = await fetch(`${proxy.url}/metrics`, admin);
    contentType = response.headers.get("content-type");
    samples = parseScrape(await response.text());
    // The example has no batch service: the batch series come from a collector that has one.
    const registry = new Registry();
    const batches = { statusCounts: () => ({ batches: { in_progress: 1 }, items: { completed: 3 } }) };
    collectMetrics(createScheduler(), { registry, batches });
    samples.push(...parseScrape(await registry.metrics()).filter((sample) => sample.name.includes("batch")));
    // Nor does it use preemption or wait targets: their series come from a scheduler that does.
    samples.push(
      ...(await preemptingScrape()).filter((sample) => /preempt|wait_target|share_/.test(sample.name)),
    );
  });

  afterAll(async () => {
    await proxy?.stop();
    await upstream?.close();
  });

  it("is served by the express example at /metrics in the Prometheus text format", () => {
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(samples.find((sample) => sample.name === "llm_scheduler_concurrency_limit")?.value).toBe(2);
    expect(samples.some((sample) => sample.labels.tenant === "chat-app")).toBe(true);
  });

  it("reads only series that exist in a real scrape, by labels they carry", () => {
    const exprs = expressions();
    expect(exprs.length).toBeGreaterThanOrEqual(10);
    const names = new Set(samples.map((sample) => sample.name));
    for (const expr of exprs) {
      const { metrics, labels } = references(expr);
      expect(metrics.length, expr).toBeGreaterThan(0);
      for (const metric of metrics) {
        expect(names, `${metric} in ${expr}`).toContain(metric);
        const carried = new Set(
          samples.filter((s) => s.name === metric).flatMap((s) => Object.keys(s.labels)),
        );
        for (const label of labels) expect(carried, `${label} on ${metric} in ${expr}`).toContain(label);
      }
    }
  });

  it("shows every series the collector serves", () => {
    const read = new Set(expressions().flatMap((expr) => references(expr).metrics));
    const served = new Set(samples.map((sample) => sample.name.replace(/_(sum|count)$/, "_bucket")));
    const histogramsRead = [...served].filter((name) => name.endsWith("_bucket") && !read.has(name));
    expect(histogramsRead).toEqual([]);
    expect([...served].filter((name) => !name.endsWith("_bucket") && !read.has(name))).toEqual([]);
  });
});

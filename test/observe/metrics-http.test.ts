import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { collectMetrics } from "@llm-scheduler/prometheus";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import OpenAI from "openai";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import type { ContractApp } from "../adapters/contract.js";
import {
  type StartGateway,
  startExpressGateway,
  startHonoGateway,
  startKoaGateway,
} from "../adapters/gateways.js";
import { parseScrape, sampleValue } from "./scrape.js";

const gateways: ReadonlyArray<readonly [string, StartGateway]> = [
  ["express", startExpressGateway],
  ["koa", startKoaGateway],
  ["hono (node server)", startHonoGateway],
];

const TTFT_MS = 60;

describe.each(gateways)("Prometheus series through a %s gateway", (_name, startGateway) => {
  let upstream: Upstream | undefined;
  let gateway: (ContractApp & { url: string }) | undefined;
  let scheduler: Scheduler | undefined;

  afterEach(async () => {
    await gateway?.close();
    await scheduler?.close({ timeoutMs: 100 });
    await upstream?.close();
  });

  it("counts requests and observes the time to first byte the adapter reports, from a real streamed call", async () => {
    upstream = await startUpstream({ port: 0, parallel: 4, ttftMs: TTFT_MS, tokenMs: 2, slowdown: 0 });
    scheduler = createScheduler({ maxConcurrency: 2 });
    const registry = new Registry();
    collectMetrics(scheduler, { registry });
    gateway = await startGateway(scheduler, upstream.url);
    const client = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: "test-key",
      maxRetries: 0,
      timeout: 20_000,
    });
    const stream = await client.chat.completions.create({
      model: "sim-model",
      messages: [{ role: "user", content: "Say something short." }],
      max_tokens: 6,
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text.length).toBeGreaterThan(0);
    await scheduler.onIdle();
    const samples = parseScrape(await registry.metrics());
    const interactive = { priority: "interactive" };
    expect(
      sampleValue(samples, "llm_scheduler_requests_total", { ...interactive, outcome: "completed" }),
    ).toBe(1);
    expect(sampleValue(samples, "llm_scheduler_time_to_first_byte_seconds_count", interactive)).toBe(1);
    const ttfb = sampleValue(samples, "llm_scheduler_time_to_first_byte_seconds_sum", interactive);
    const run = sampleValue(samples, "llm_scheduler_run_seconds_sum", interactive);
    expect(ttfb).toBeGreaterThanOrEqual((TTFT_MS * 0.9) / 1000); // the first token, not the headers
    expect(ttfb).toBeLessThanOrEqual(run + 0.001);
    expect(sampleValue(samples, "llm_scheduler_running", { ...interactive, scope: "local" })).toBe(0);
  });
});

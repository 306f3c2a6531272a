import type { Permit } from "@llm-scheduler/core";
import { collectMetrics } from "@llm-scheduler/prometheus";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { type Instance, instance, useRedisServer, waitFor } from "../redis/helpers.js";
import { parseScrape, sampleValue } from "./scrape.js";

const redis = useRedisServer();
let open: Instance[] = [];

afterEach(async () => {
  await Promise.all(open.map((gateway) => gateway.close()));
  open = [];
});

describe("Prometheus gauges with the Redis store", () => {
  it("read the shared store's global running count on every instance, and say so", async () => {
    const priorities = { interactive: { queueTimeoutMs: 20_000 }, batch: { queueTimeoutMs: 20_000 } };
    open = [1, 2].map(() =>
      instance(redis.server.url, { prefix: "observe:", leaseMs: 3_000 }, { maxConcurrency: 4, priorities }),
    );
    const [a, b] = open as [Instance, Instance];
    const registries = [new Registry(), new Registry()];
    collectMetrics(a.scheduler, { registry: registries[0]!, scope: "global" });
    collectMetrics(b.scheduler, { registry: registries[1]!, scope: "global" });
    const held: Permit[] = [
      await a.scheduler.acquire(),
      await b.scheduler.acquire(),
      await b.scheduler.acquire({ priority: "batch" }),
    ];
    const running = async (index: number, priority: string) =>
      sampleValue(parseScrape(await registries[index]!.metrics()), "llm_scheduler_running", {
        priority,
        scope: "global",
      });
    // Each instance learns the others' grants from Redis: both report all three slots.
    await waitFor(async () => (await running(0, "interactive")) === 2 && (await running(0, "batch")) === 1);
    expect(await running(1, "interactive")).toBe(2);
    expect(await running(1, "batch")).toBe(1);
    expect(await registries[0]!.metrics()).toMatch(/# HELP llm_scheduler_running .*every instance sharing/);
    for (const permit of held) permit.release();
    await waitFor(async () => (await running(0, "interactive")) === 0 && (await running(1, "batch")) === 0);
    const completed = registries.map(async (registry) =>
      sampleValue(parseScrape(await registry.metrics()), "llm_scheduler_requests_total", {
        priority: "interactive",
        outcome: "completed",
      }),
    );
    expect(await Promise.all(completed)).toEqual([1, 1]); // counters stay per instance
  });
});

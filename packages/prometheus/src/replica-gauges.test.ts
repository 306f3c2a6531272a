import { createScheduler } from "@llm-scheduler/core";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { collectMetrics } from "./collect.js";
import type { ReplicaRow } from "./options.js";

function sample(text: string, line: string): number | undefined {
  const found = text.split("\n").find((row) => row.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe("collectMetrics with replicas", () => {
  it("reads each replica's limit, load, health, engine signals and counters at scrape time", async () => {
    const rows: ReplicaRow[] = [
      {
        id: "r0",
        limit: 8,
        inFlight: 3,
        healthy: true,
        ejections: 0,
        failedBeforeFirstByte: 1,
        engine: { waiting: 2, running: 6, kvCacheUsage: 0.5 },
      },
      {
        id: "r1",
        limit: 4,
        inFlight: 0,
        healthy: false,
        ejections: 2,
        failedBeforeFirstByte: 5,
        engine: undefined,
      },
    ];
    const scheduler = createScheduler({ maxConcurrency: 8 });
    const registry = new Registry();
    const collector = collectMetrics(scheduler, {
      registry,
      replicas: { metrics: () => ({ replicas: rows }) },
    });
    let text = await registry.metrics();
    expect(sample(text, 'llm_scheduler_replica_limit{replica="r0"}')).toBe(8);
    expect(sample(text, 'llm_scheduler_replica_in_flight{replica="r0"}')).toBe(3);
    expect(sample(text, 'llm_scheduler_replica_healthy{replica="r1"}')).toBe(0);
    expect(sample(text, 'llm_scheduler_replica_engine_waiting{replica="r0"}')).toBe(2);
    expect(sample(text, 'llm_scheduler_replica_kv_cache_usage{replica="r0"}')).toBe(0.5);
    expect(sample(text, 'llm_scheduler_replica_engine_waiting{replica="r1"}')).toBeUndefined();
    expect(sample(text, 'llm_scheduler_replica_ejections_total{replica="r1"}')).toBe(2);
    expect(sample(text, 'llm_scheduler_replica_failed_before_first_byte_total{replica="r1"}')).toBe(5);
    rows[1] = { ...rows[1]!, healthy: true };
    text = await registry.metrics();
    expect(sample(text, 'llm_scheduler_replica_healthy{replica="r1"}')).toBe(1);
    collector.stop();
    expect(await registry.metrics()).not.toContain("replica_limit");
    await scheduler.close();
  });

  it("refuses a replicas source without metrics()", () => {
    const scheduler = createScheduler();
    expect(() => collectMetrics(scheduler, { registry: new Registry(), replicas: {} as never })).toThrow(
      "Expected `replicas` to be an object with a metrics() method",
    );
  });
});

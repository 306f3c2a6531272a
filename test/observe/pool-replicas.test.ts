import { createPool } from "@llm-scheduler/pool";
import { collectMetrics } from "@llm-scheduler/prometheus";
import { startReplicas } from "@llm-scheduler/upstream-sim";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";

function sample(text: string, line: string): number | undefined {
  const found = text.split("\n").find((row) => row.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe("a pool's replicas in Prometheus", () => {
  it("shows an ejected replica, the capacity it took away, and the engine signals scraped", async () => {
    const replicas = await startReplicas(2, { ttftMs: 1, tokenMs: 1, prefillMsPerToken: 0 });
    const pool = createPool({
      replicas: replicas.map((replica) => ({ url: replica.url, maxConcurrency: 3 })),
      routing: "round-robin", // the first request tries r0 first
      health: { failures: 1, intervalMs: 0, ejectMs: 60_000 },
      signals: { intervalMs: 20 },
    });
    const registry = new Registry();
    const collector = collectMetrics(pool.scheduler, { registry, replicas: pool });
    try {
      await expect
        .poll(() => pool.metrics().replicas.every((r) => r.engine !== undefined), { timeout: 5_000 })
        .toBe(true);
      await replicas[0]!.crash();
      const answer = await pool.fetch("/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], max_tokens: 2 }),
      });
      expect(answer.status).toBe(200);
      await answer.text();
      const text = await registry.metrics();
      expect(sample(text, "llm_scheduler_concurrency_limit")).toBe(3);
      expect(sample(text, 'llm_scheduler_replica_healthy{replica="r0"}')).toBe(0);
      expect(sample(text, 'llm_scheduler_replica_healthy{replica="r1"}')).toBe(1);
      expect(sample(text, 'llm_scheduler_replica_ejections_total{replica="r0"}')).toBe(1);
      expect(sample(text, 'llm_scheduler_replica_failed_before_first_byte_total{replica="r0"}')).toBe(1);
      expect(sample(text, 'llm_scheduler_replica_engine_waiting{replica="r1"}')).toBe(0);
      expect(sample(text, 'llm_scheduler_replica_limit{replica="r1"}')).toBe(3);
    } finally {
      collector.stop();
      await pool.close();
      await Promise.all(replicas.map((replica) => replica.close()));
    }
  });
});

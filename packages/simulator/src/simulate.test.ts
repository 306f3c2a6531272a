import { describe, expect, it } from "vitest";
import { demoScenario } from "./demo-scenario.js";
import { resolveScenario } from "./scenario-resolve.js";
import { simulate } from "./simulate.js";
import { renderComparison } from "./table.js";

const small = resolveScenario(demoScenario({ durationMs: 8_000 }));

async function table(seed: number): Promise<string> {
  const scenario = { ...small, seed };
  const fifo = await simulate(scenario, { gateway: "fifo" });
  const scheduled = await simulate(scenario, { gateway: "scheduler" });
  return renderComparison(scenario, [fifo, scheduled]);
}

describe("simulate", () => {
  it("is deterministic: the same seed gives the same table, another seed another table", async () => {
    const first = await table(3);
    expect(await table(3)).toBe(first);
    expect(await table(4)).not.toBe(first);
  });

  it("shows the batch flood starving chat behind FIFO and not behind llm-scheduler", async () => {
    const fifo = await simulate(small, { gateway: "fifo" });
    const scheduled = await simulate(small, { gateway: "scheduler" });
    expect(fifo.interactive.waitMs.p95).toBeGreaterThan(10 * scheduled.interactive.waitMs.p95);
    expect(fifo.interactive.timeouts).toBeGreaterThan(0);
    expect(scheduled.interactive.unanswered).toBe(0);
    for (const result of [fifo, scheduled]) {
      expect(result.batch.completed).toBe(result.batch.items);
      expect(result.batch.makespanMs).toBeGreaterThan(0);
      expect(result.samples.length).toBeGreaterThan(10);
      expect(
        Math.max(...result.samples.map((s) => (s.running.interactive ?? 0) + (s.running.batch ?? 0))),
      ).toBeLessThanOrEqual(8);
    }
    expect(scheduled.tenants.map((t) => t.tenant).sort()).toEqual(["chat-app", "evals", "indexer"]);
  });

  it("runs a scenario with preemption and no reserved slot: chat waits less, every batch item completes", async () => {
    const priorities = (preempt: boolean) => ({
      interactive: {
        weight: 5,
        queueTimeoutMs: 5_000,
        maxQueue: 1_000,
        ...(preempt && { preempts: ["batch"] }),
      },
      batch: { weight: 1, queueTimeoutMs: 600_000, maxQueue: 100_000 },
    });
    const base = demoScenario({ durationMs: 8_000 });
    const plain = resolveScenario({ ...base, scheduler: { priorities: priorities(false) } });
    const preempting = resolveScenario({ ...base, scheduler: { priorities: priorities(true) } });
    const without = await simulate(plain, { gateway: "scheduler" });
    const withPreemption = await simulate(preempting, { gateway: "scheduler" });
    expect(withPreemption.interactive.waitMs.p95).toBeLessThan(without.interactive.waitMs.p95);
    expect(withPreemption.batch.completed).toBe(withPreemption.batch.items);
    expect(
      Math.max(...withPreemption.samples.map((s) => (s.running.interactive ?? 0) + (s.running.batch ?? 0))),
    ).toBeLessThanOrEqual(8);
  });

  it("replays an hour of traffic (10,000 chats, 2,000 batch items) without real waiting", async () => {
    const hour = resolveScenario({
      durationMs: 3_600_000,
      upstream: { parallel: 16 },
      chat: { ratePerSec: 3, timeoutMs: 10_000 },
      batch: {
        tenants: [
          { name: "etl", items: 1_200 },
          { name: "evals", items: 800, startMs: 600_000 },
        ],
      },
      scheduler: {
        priorities: {
          interactive: { weight: 5, reserved: 2 },
          batch: { maxQueue: 100_000, queueTimeoutMs: "Infinity" },
        },
      },
    });
    const result = await simulate(hour, { gateway: "scheduler" });
    expect(result.interactive.requests).toBeGreaterThan(10_000);
    expect(result.batch.completed).toBe(2_000);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(3_600_000 - 10_000);
  }, 60_000);
});

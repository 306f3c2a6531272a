import { describe, expect, it } from "vitest";
import { generateBatchJobs } from "./batch-jobs.js";
import { simulateBatchWindows } from "./batch-windows.js";
import { ScenarioError } from "./scenario-error.js";
import { resolveScenario } from "./scenario-resolve.js";

/** Short windows among long ones on a small server, busy enough that the order across batches matters. */
const scenario = resolveScenario({
  durationMs: 1_000,
  seed: 2,
  upstream: { parallel: 4, tokenMs: 10 },
  chat: { ratePerSec: 0 },
  batch: {
    jobs: {
      count: 30,
      ratePerMin: 10,
      tenants: ["a", "b", "c"],
      items: { min: 20, max: 80 },
      completionWindowMs: { min: 60_000, max: 900_000 },
      promptTokens: 100,
      maxTokens: { min: 20, max: 60 },
    },
  },
});

describe("batch.jobs in a scenario", () => {
  it("fills the defaults, and refuses unknown keys and bad values naming the field", () => {
    const resolved = resolveScenario({ durationMs: 1_000, batch: { jobs: { count: 5, ratePerMin: 1 } } });
    expect(resolved.batch.jobs).toEqual({
      count: 5,
      ratePerMin: 1,
      startMs: 0,
      tenants: ["jobs"],
      items: { min: 10, max: 100 },
      completionWindowMs: { min: 300_000, max: 1_800_000 },
      promptTokens: { min: 200, max: 800 },
      maxTokens: { min: 100, max: 300 },
    });
    expect(resolveScenario({ durationMs: 1_000 }).batch.jobs).toBeNull();
    const bad = [
      [{ count: 5, ratePerMin: 1, windowMs: 10 }, "batch.jobs.windowMs"],
      [{ ratePerMin: 1 }, "batch.jobs.count"],
      [{ count: 5 }, "batch.jobs.ratePerMin"],
      [{ count: 5, ratePerMin: 1, items: { min: 1, max: 60_000 } }, "batch.jobs.items.max"],
      [{ count: 5, ratePerMin: 1, tenants: ["chat"] }, "batch.jobs.tenants[0]"],
      [{ count: 5, ratePerMin: 1, completionWindowMs: 10 }, "batch.jobs.completionWindowMs"],
    ] as const;
    for (const [jobs, field] of bad) {
      try {
        resolveScenario({ durationMs: 1_000, batch: { jobs } });
        expect.unreachable(`${JSON.stringify(jobs)} was accepted`);
      } catch (error) {
        expect(error).toBeInstanceOf(ScenarioError);
        expect((error as ScenarioError).field).toBe(field);
      }
    }
  });

  it("draws the same batches from the same seed", () => {
    const jobs = scenario.batch.jobs!;
    expect(generateBatchJobs(jobs, 2)).toEqual(generateBatchJobs(jobs, 2));
    expect(generateBatchJobs(jobs, 4)).not.toEqual(generateBatchJobs(jobs, 2));
    expect(generateBatchJobs(jobs, 2)).toHaveLength(30);
  });
});

describe("simulateBatchWindows", () => {
  it("meets every window earliest deadline first, where FIFO across batches misses some", async () => {
    const edf = await simulateBatchWindows(scenario, { order: "deadline" });
    const fifo = await simulateBatchWindows(scenario, { order: "created", orderTieMs: 0 });
    expect(edf.batches).toHaveLength(30);
    expect(fifo.batches).toHaveLength(30);
    expect(edf.withinWindow).toBe(1);
    expect(fifo.withinWindow).toBeLessThan(1);
    expect(fifo.batches.some((b) => b.status === "expired")).toBe(true);
    expect(edf.estimateError.count).toBeGreaterThan(20);
    expect(edf.estimateError.p50).toBeLessThan(0.2);
  }, 60_000); // two runs of the batch layer in virtual time: a few seconds of CPU

  it("refuses a scenario without batch.jobs", async () => {
    await expect(
      simulateBatchWindows(resolveScenario({ durationMs: 1_000 }), { order: "deadline" }),
    ).rejects.toThrow(ScenarioError);
  });
});

import { VirtualClock } from "@llm-scheduler/core";
import { createLatencyModel } from "@llm-scheduler/upstream-sim";
import { describe, expect, it } from "vitest";
import { Capacity } from "./capacity.js";
import { explainMakespan, makespanVsIdeal } from "./ideal.js";
import { renderHtmlReport } from "./report-html.js";
import type { Scenario } from "./scenario.js";
import { resolveScenario } from "./scenario-resolve.js";
import { simulate } from "./simulate.js";
import { renderComparison } from "./table.js";
import { VirtualUpstream } from "./virtual-upstream.js";

/** A server whose knee (12) the gateway is not told, a batch flood, and the capacity halved mid-run. */
const adaptive: Scenario = {
  name: "adaptive",
  durationMs: 240_000,
  upstream: {
    parallel: 100,
    ttftMs: 100,
    tokenMs: 20,
    slowdown: 0,
    capacity: { knee: 12, hardLimit: 20, changes: [{ atMs: 120_000, scale: 0.5 }] },
  },
  gateway: { maxConcurrency: { initial: 4, min: 2, max: 40 } },
  scheduler: {
    priorities: { interactive: { weight: 5, reserved: 2 }, batch: { queueTimeoutMs: "Infinity" as never } },
  },
  chat: { ratePerSec: 1, promptTokens: 100, maxTokens: 20, timeoutMs: 60_000 },
  batch: { tenants: [{ name: "indexer", items: 3_000, promptTokens: 500, maxTokens: 100 }] },
};

describe("scenarios with an upstream capacity and an adaptive limit", () => {
  it("resolves capacity and the range, and refuses what is wrong", () => {
    const scenario = resolveScenario(adaptive);
    expect(scenario.capacity).toMatchObject({ knee: 12, hardLimit: 20, steepness: 4 });
    expect(scenario.maxConcurrency).toBe(4);
    expect(scenario.scheduler.maxConcurrency).toEqual({ initial: 4, min: 2, max: 40 });
    const wrong = (patch: Partial<Scenario>, field: string) =>
      expect(() => resolveScenario({ ...adaptive, ...patch })).toThrow(expect.objectContaining({ field }));
    wrong({ upstream: { capacity: { knee: 10, hardLimit: 5 } } }, "upstream.capacity.hardLimit");
    wrong({ upstream: { capacity: { hardLimit: 5 } as never } }, "upstream.capacity.knee");
    wrong(
      { upstream: { capacity: { knee: 4, changes: [{ atMs: 1, scale: 0 }] } } },
      "upstream.capacity.changes[0].scale",
    );
    wrong({ gateway: { maxConcurrency: { min: 2, max: 8, top: 9 } as never } }, "gateway.maxConcurrency.top");
    wrong({ scheduler: { adaptive: { windowMS: 1 } as never } }, "scheduler.adaptive.windowMS");
  });

  it("the adaptive limit finds the knee, follows the halving, and the report charts it", async () => {
    const scenario = resolveScenario(adaptive);
    const fifo = await simulate(scenario, { gateway: "fifo" });
    const scheduled = await simulate(scenario, { gateway: "scheduler", sampleEveryMs: 1_000 });
    const limitAt = (fromMs: number, toMs: number): number[] =>
      scheduled.samples.filter((s) => s.at >= fromMs && s.at < toMs).map((s) => s.limit!);
    const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
    expect(mean(limitAt(60_000, 120_000))).toBeGreaterThan(10);
    expect(mean(limitAt(60_000, 120_000))).toBeLessThan(16);
    expect(mean(limitAt(180_000, 240_000))).toBeLessThan(9);
    expect(new Set(fifo.samples.map((s) => s.limit))).toEqual(new Set([4]));
    const html = renderHtmlReport({
      title: "adaptive",
      scenario,
      results: [fifo, scheduled],
      table: renderComparison(scenario, [fifo, scheduled]),
    });
    expect(html).toContain("concurrency limit over time");
  }, 30_000); // two simulated runs: seconds of CPU, more on a loaded machine

  it("measures slot use and the ideal against the limit in force, not the initial one", async () => {
    const scenario = resolveScenario(adaptive);
    const fifo = await simulate(scenario, { gateway: "fifo" });
    const scheduled = await simulate(scenario, { gateway: "scheduler", sampleEveryMs: 1_000 });
    const { slots } = scheduled;
    expect(slots.utilizationWhileWaiting).toBeLessThanOrEqual(1);
    expect(slots.utilization).toBeLessThanOrEqual(1);
    expect(slots.idleWhileWaitingMs).toBeGreaterThanOrEqual(slots.idleReservedMs);
    // The mean limit over the batch's window: between the two knees, above the initial 4.
    expect(slots.capacity).toBeGreaterThan(6);
    expect(slots.capacity).toBeLessThan(14);
    const { ratio } = makespanVsIdeal(fifo, scheduled);
    expect(ratio).toBeGreaterThan(0.8);
    expect(explainMakespan(fifo, scheduled)).not.toMatch(/- [0-9.]+ s of idle|busy [1-9][0-9]{2}\.[0-9]%/);
  });
});

describe("Capacity", () => {
  it("slows gently up to the knee and steeply past it; scales both bounds", () => {
    const capacity = new Capacity({ knee: 32, hardLimit: 48 });
    expect(capacity.factor(1)).toBe(1);
    expect(capacity.factor(32)).toBeCloseTo(1.1);
    expect(capacity.factor(40)).toBeCloseTo(2.1);
    capacity.scale = 0.5;
    expect([capacity.knee, capacity.hardLimit]).toEqual([16, 24]);
  });
});

describe("VirtualUpstream with a capacity", () => {
  it("answers 503 at once past the hard limit, and takes more after a doubling", async () => {
    const clock = new VirtualClock(0);
    const capacity = new Capacity({ knee: 2, hardLimit: 3, changes: [{ atMs: 1_000, scale: 2 }] });
    const upstream = new VirtualUpstream(createLatencyModel({ parallel: 100 }), clock, capacity);
    const signal = new AbortController().signal;
    const job = { promptTokens: 10, completionTokens: 1_000, signal };
    const outcomes = Array.from({ length: 4 }, () =>
      upstream.generate(job).then(
        () => 200,
        (e) => e.status,
      ),
    );
    expect(await outcomes[3]).toBe(503);
    clock.advance(1_000);
    const later = upstream.generate(job).then(
      () => 200,
      (e) => e.status,
    );
    clock.runUntilIdle();
    expect(await later).toBe(200);
    expect(await Promise.all(outcomes.slice(0, 3))).toEqual([200, 200, 200]);
  });
});

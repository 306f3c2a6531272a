import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { collectMetrics } from "./collect.js";

/** The value of one sample line, or undefined when the line is absent. */
function sample(text: string, line: string): number | undefined {
  const found = text.split("\n").find((row) => row.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

/** Lets the promise callbacks queued by settled tasks run. */
async function flush(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

const withStatus = (status: number): Error => Object.assign(new Error(`upstream ${status}`), { status });

describe("collectMetrics: the adaptive limit", () => {
  it("reads the live limit into concurrency_limit and counts its changes by reason", async () => {
    const clock = new VirtualClock(0);
    const scheduler = createScheduler({
      clock,
      maxConcurrency: { initial: 8, min: 2, max: 16 },
      adaptive: { windowMs: 1_000, minSamples: 5, cooldownMs: 2_000 },
    });
    const registry = new Registry();
    collectMetrics(scheduler, { registry });
    let text = await registry.metrics();
    expect(sample(text, "llm_scheduler_concurrency_limit")).toBe(8);
    expect(text).toContain("# TYPE llm_scheduler_limit_changes_total counter");
    for (const reason of ["increase", "overload", "latency", "upstream", "update", "shared"]) {
      expect(sample(text, `llm_scheduler_limit_changes_total{reason="${reason}"}`)).toBe(0);
    }

    // An upstream 503 cuts the limit at once (by overloadFactor, 0.75 by default).
    const failing = scheduler.run(
      () => new Promise((_, reject) => clock.setTimer(() => reject(withStatus(503)), 10)),
    );
    clock.advance(20);
    await expect(failing).rejects.toThrow("upstream 503");
    await flush();
    text = await registry.metrics();
    expect(scheduler.maxConcurrency).toBe(6);
    expect(sample(text, "llm_scheduler_concurrency_limit")).toBe(6);
    expect(sample(text, 'llm_scheduler_limit_changes_total{reason="overload"}')).toBe(1);

    scheduler.update({ maxConcurrency: 10 });
    await flush();
    text = await registry.metrics();
    expect(sample(text, "llm_scheduler_concurrency_limit")).toBe(10);
    expect(sample(text, 'llm_scheduler_limit_changes_total{reason="update"}')).toBe(1);
    expect(sample(text, 'llm_scheduler_limit_changes_total{reason="overload"}')).toBe(1);

    // Tenant b is served; tenant a's own 429 holds back a alone.
    for (const change of ["cut", "give_back", "release"]) {
      expect(sample(text, `llm_scheduler_tenant_backoff_changes_total{change="${change}"}`)).toBe(0);
    }
    await scheduler.run(() => "ok", { tenant: "b" });
    const limited = scheduler.run(() => Promise.reject(withStatus(429)), { tenant: "a" });
    await expect(limited).rejects.toThrow("upstream 429");
    await flush();
    text = await registry.metrics();
    expect(sample(text, 'llm_scheduler_tenant_backoff_changes_total{change="cut"}')).toBe(1);
    expect(sample(text, 'llm_scheduler_limit_changes_total{reason="overload"}')).toBe(1);
    await scheduler.close();
  });
});

describe("collectMetrics: wait-time targets", () => {
  it("serves each priority's effective weight and reserve, the target, and counts share changes", async () => {
    const clock = new VirtualClock(0);
    const scheduler = createScheduler({
      clock,
      maxConcurrency: 4,
      priorities: {
        interactive: { weight: 2, targetWaitMs: 500, queueTimeoutMs: 120_000 },
        batch: { weight: 1, reserved: 1, queueTimeoutMs: 3_600_000, maxQueue: 100_000 },
      },
      waitTargets: { windowMs: 2_000, minSamples: 5, calmWindows: 2 },
    });
    const registry = new Registry();
    const collector = collectMetrics(scheduler, { registry });
    let text = await registry.metrics();
    expect(sample(text, 'llm_scheduler_effective_weight{priority="interactive"}')).toBe(2);
    expect(sample(text, 'llm_scheduler_effective_weight{priority="batch"}')).toBe(1);
    expect(sample(text, 'llm_scheduler_effective_reserved{priority="interactive"}')).toBe(0);
    expect(sample(text, 'llm_scheduler_effective_reserved{priority="batch"}')).toBe(1);
    expect(sample(text, 'llm_scheduler_wait_target_seconds{priority="interactive"}')).toBe(0.5);
    expect(sample(text, 'llm_scheduler_wait_target_seconds{priority="batch"}')).toBeUndefined();
    expect(
      sample(text, 'llm_scheduler_share_changes_total{priority="interactive",reason="above_target"}'),
    ).toBe(0);
    expect(text).not.toContain('llm_scheduler_share_changes_total{priority="batch"');

    // Every slot busy with ten-second batch work; chat arrives every 250 ms and waits past its target.
    const sleep = (ms: number) => () => new Promise<void>((resolve) => clock.setTimer(resolve, ms));
    for (let i = 0; i < 200; i++) scheduler.run(sleep(10_000), { priority: "batch" }).catch(() => {});
    let raised = false;
    scheduler.on("share", (event) => {
      if (event.reason === "above-target") raised = true;
    });
    for (let at = 0; at < 60_000 && !raised; at += 50) {
      if (at % 250 === 0) scheduler.run(sleep(200), { priority: "interactive" }).catch(() => {});
      clock.advance(50);
      await flush();
    }
    expect(raised).toBe(true);
    const share = scheduler.metrics().priorities.interactive!.share!;
    expect(share.effectiveWeight).toBeGreaterThan(2);
    text = await registry.metrics();
    expect(sample(text, 'llm_scheduler_effective_weight{priority="interactive"}')).toBe(
      share.effectiveWeight,
    );
    expect(sample(text, 'llm_scheduler_effective_reserved{priority="interactive"}')).toBe(
      share.effectiveReserved,
    );
    expect(share.effectiveReserved).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'llm_scheduler_share_changes_total{priority="interactive",reason="above_target"}'),
    ).toBeGreaterThanOrEqual(1);

    collector.stop();
    expect((await registry.metrics()).trim()).toBe("");
    // Close, letting the grace of the aborted batch tasks run out in virtual time.
    const closing = scheduler.close({ timeoutMs: 0 });
    for (let i = 0; i < 10 && clock.nextTimerAt() !== undefined; i++) {
      clock.advance(10_000);
      await flush();
    }
    await closing;
  });
});

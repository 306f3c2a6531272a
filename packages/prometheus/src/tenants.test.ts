import { createScheduler, type Scheduler, VirtualClock } from "@llm-scheduler/core";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { collectMetrics } from "./collect.js";

function setUp(top: number, halfLifeMs?: number) {
  const clock = new VirtualClock(0);
  const scheduler = createScheduler({ clock, maxConcurrency: 4 });
  const registry = new Registry();
  collectMetrics(scheduler, { registry, tenantLabel: { top, halfLifeMs } });
  return { scheduler, registry, clock };
}

/** Runs one no-op task per tenant name, `times` times each. */
async function traffic(scheduler: Scheduler, tenants: Iterable<string>, times = 1): Promise<void> {
  const runs: Array<Promise<unknown>> = [];
  for (const tenant of tenants) for (let i = 0; i < times; i++) runs.push(scheduler.run(() => 1, { tenant }));
  await Promise.all(runs);
}

function* named(prefix: string, count: number): Generator<string> {
  for (let i = 0; i < count; i++) yield `${prefix}-${i}`;
}

function tenantValues(text: string): Set<string> {
  return new Set([...text.matchAll(/tenant="([^"]*)"/g)].map((match) => match[1]!));
}

describe("collectMetrics with a tenant label", () => {
  it("labels the busiest tenants after a scrape and counts the rest as other", async () => {
    const { scheduler, registry } = setUp(2);
    await traffic(scheduler, ["heavy", "busy"], 5);
    await traffic(scheduler, ["light"]);
    await registry.metrics(); // ranks heavy and busy; so far all 11 were counted as other
    await traffic(scheduler, ["heavy", "busy", "light"], 2);
    const text = await registry.metrics();
    expect(text).toContain(
      'llm_scheduler_requests_total{priority="interactive",outcome="completed",tenant="heavy"} 2',
    );
    expect(text).toContain(
      'llm_scheduler_requests_total{priority="interactive",outcome="completed",tenant="busy"} 2',
    );
    expect(text).toContain(
      'llm_scheduler_requests_total{priority="interactive",outcome="completed",tenant="other"} 13',
    );
    expect(tenantValues(text)).toEqual(new Set(["heavy", "busy", "other"]));
  });

  it("splits running and queued by labelled tenant, the rest in other", async () => {
    const { scheduler, registry } = setUp(1);
    const held = [1, 2, 3].map(() => scheduler.tryAcquire({ tenant: "big" })!);
    held.push(scheduler.tryAcquire({ tenant: "small" })!);
    const waiting = scheduler.acquire({ tenant: "small" });
    await registry.metrics(); // ranks "big" (3 running) first
    const text = await registry.metrics();
    expect(text).toContain('llm_scheduler_running{priority="interactive",scope="local",tenant="big"} 3');
    expect(text).toContain('llm_scheduler_running{priority="interactive",scope="local",tenant="other"} 1');
    expect(text).toContain('llm_scheduler_queued{priority="interactive",scope="local",tenant="other"} 1');
    for (const permit of held) permit.release();
    (await waiting).release();
  });

  it("removes the series of a tenant that went idle, as its decayed count falls below another's", async () => {
    const { scheduler, registry, clock } = setUp(1, 10_000);
    await traffic(scheduler, ["early"], 3);
    await registry.metrics();
    await traffic(scheduler, ["early"]);
    expect(tenantValues(await registry.metrics())).toContain("early");
    clock.advance(30_000); // three half-lives: early's 4 requests now weigh 0.5
    await traffic(scheduler, ["late"], 3);
    await registry.metrics();
    await traffic(scheduler, ["late"]);
    const text = await registry.metrics();
    expect(tenantValues(text)).not.toContain("early");
    expect(tenantValues(text)).toContain("late");
  });

  it("keeps a busy tenant labelled when one-shot tenants arrive after every scrape", async () => {
    const { scheduler, registry, clock } = setUp(2);
    const busy = /requests_total\{priority="interactive",outcome="completed",tenant="busy"\} (\d+)\n/;
    for (let round = 0; round < 10; round++) {
      const text = await registry.metrics();
      if (round >= 2) expect(Number(busy.exec(text)?.[1])).toBe((round - 1) * 5); // labelled since round 1
      expect(tenantValues(text).size).toBeLessThanOrEqual(3);
      clock.advance(5_000);
      await traffic(scheduler, named(`once-${round}`, 300)); // each name used once, right after a scrape
      await traffic(scheduler, ["busy"], 5); // done before the next scrape: never running at scrape time
      clock.advance(10_000);
    }
  });

  it("keeps the scrape the same size under 100,000 distinct tenants", async () => {
    const { scheduler, registry } = setUp(8);
    const hot = [...named("hot", 8)];
    const round = async (flood: number, prefix: string) => {
      await traffic(scheduler, hot, 3);
      await traffic(scheduler, named(prefix, flood));
      return registry.metrics();
    };
    await round(1_000, "warm");
    const small = await round(1_000, "small");
    const large = await round(100_000, "large");
    const after = await round(1_000, "after");
    expect(tenantValues(large).size).toBeLessThanOrEqual(9);
    expect(large.split("\n").length).toBeLessThanOrEqual(small.split("\n").length);
    expect(after.split("\n").length).toBe(small.split("\n").length);
    expect(after.length).toBeLessThan(small.length * 1.1);
  }, 60_000);

  it("carries no tenant label unless asked", async () => {
    const scheduler = createScheduler();
    const registry = new Registry();
    collectMetrics(scheduler, { registry });
    await traffic(scheduler, ["a", "b"]);
    expect(tenantValues(await registry.metrics()).size).toBe(0);
  });
});

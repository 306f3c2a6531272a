import { createScheduler, SchedulerError, VirtualClock } from "@llm-scheduler/core";
import { Gauge, type OpenMetricsContentType, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { collectMetrics } from "./collect.js";

function setUp(options: Omit<Parameters<typeof collectMetrics>[1], "registry"> = {}) {
  const clock = new VirtualClock();
  const scheduler = createScheduler({
    clock,
    maxConcurrency: 2,
    priorities: { interactive: { weight: 5, maxQueue: 1 }, batch: { weight: 1 } },
  });
  const registry = new Registry();
  const collector = collectMetrics(scheduler, { registry, ...options });
  return { clock, scheduler, registry, collector };
}

/** The value of one sample line, or undefined when the line is absent. */
function sample(text: string, line: string): number | undefined {
  const found = text.split("\n").find((row) => row.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe("collectMetrics", () => {
  it("counts preemptions and the run time they threw away, per priority", async () => {
    const clock = new VirtualClock();
    const scheduler = createScheduler({
      clock,
      maxConcurrency: 1,
      priorities: { interactive: { preempts: ["batch"] }, batch: {} },
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
    clock.advance(1_500);
    await expect(scheduler.run(() => "chat", { priority: "interactive" })).resolves.toBe("chat");
    await expect(batch).resolves.toBe("done");
    const text = await registry.metrics();
    expect(sample(text, 'llm_scheduler_preemptions_total{priority="batch"}')).toBe(1);
    expect(sample(text, 'llm_scheduler_preempted_seconds_total{priority="batch"}')).toBe(1.5);
    expect(sample(text, 'llm_scheduler_preemptions_total{priority="interactive"}')).toBeUndefined();
  });

  it("counts requests by priority and outcome, with the rejection code in lower case", async () => {
    const { clock, scheduler, registry } = setUp();
    await scheduler.run(() => "ok", { priority: "batch" });
    await expect(
      scheduler.run(() => {
        throw new Error("upstream 500");
      }),
    ).rejects.toThrow("upstream 500");
    const slow = scheduler.run(
      ({ signal }) => new Promise((_, reject) => signal.addEventListener("abort", reject)),
      {
        timeoutMs: 100,
      },
    );
    const holder = scheduler.tryAcquire()!;
    const waiting = scheduler.run(() => 1);
    await expect(scheduler.run(() => 2)).rejects.toMatchObject({ code: "QUEUE_FULL" });
    clock.advance(100);
    await expect(slow).rejects.toMatchObject({ code: "RUN_TIMEOUT" });
    await waiting;
    holder.release();
    const text = await registry.metrics();
    expect(text).toContain("# TYPE llm_scheduler_requests_total counter");
    expect(sample(text, 'llm_scheduler_requests_total{priority="batch",outcome="completed"}')).toBe(1);
    expect(sample(text, 'llm_scheduler_requests_total{priority="interactive",outcome="completed"}')).toBe(2);
    expect(sample(text, 'llm_scheduler_requests_total{priority="interactive",outcome="failed"}')).toBe(1);
    expect(sample(text, 'llm_scheduler_requests_total{priority="interactive",outcome="run_timeout"}')).toBe(
      1,
    );
    expect(sample(text, 'llm_scheduler_requests_total{priority="interactive",outcome="queue_full"}')).toBe(1);
  });

  it("observes queue wait, run time and time to first byte in seconds, in buckets from 1 ms to 10 min", async () => {
    const { clock, scheduler, registry } = setUp();
    const first = scheduler.tryAcquire()!;
    const second = scheduler.tryAcquire()!;
    const queued = scheduler.acquire({ priority: "batch" });
    clock.advance(40);
    first.release();
    const third = await queued;
    clock.advance(700);
    third.firstByte();
    clock.advance(2_000);
    third.release();
    second.release();
    const text = await registry.metrics();
    expect(text).toContain("# TYPE llm_scheduler_queue_wait_seconds histogram");
    expect(sample(text, 'llm_scheduler_queue_wait_seconds_bucket{le="0.025",priority="batch"}')).toBe(0);
    expect(sample(text, 'llm_scheduler_queue_wait_seconds_bucket{le="0.05",priority="batch"}')).toBe(1);
    expect(sample(text, 'llm_scheduler_queue_wait_seconds_sum{priority="batch"}')).toBe(0.04);
    expect(sample(text, 'llm_scheduler_time_to_first_byte_seconds_bucket{le="0.5",priority="batch"}')).toBe(
      0,
    );
    expect(sample(text, 'llm_scheduler_time_to_first_byte_seconds_bucket{le="1",priority="batch"}')).toBe(1);
    expect(sample(text, 'llm_scheduler_run_seconds_bucket{le="2.5",priority="batch"}')).toBe(0);
    expect(sample(text, 'llm_scheduler_run_seconds_bucket{le="5",priority="batch"}')).toBe(1);
    expect(sample(text, 'llm_scheduler_run_seconds_bucket{le="+Inf",priority="interactive"}')).toBe(2);
    expect(sample(text, 'llm_scheduler_run_seconds_bucket{le="600",priority="interactive"}')).toBe(2);
    expect(sample(text, 'llm_scheduler_run_seconds_count{priority="interactive"}')).toBe(2);
  });

  it("reads running, queued and the limit at scrape time", async () => {
    const { scheduler, registry } = setUp();
    const held = [scheduler.tryAcquire()!, scheduler.tryAcquire({ priority: "batch" })!];
    const queued = scheduler.acquire({ priority: "batch" });
    let text = await registry.metrics();
    expect(sample(text, 'llm_scheduler_running{priority="interactive",scope="local"}')).toBe(1);
    expect(sample(text, 'llm_scheduler_running{priority="batch",scope="local"}')).toBe(1);
    expect(sample(text, 'llm_scheduler_queued{priority="batch",scope="local"}')).toBe(1);
    expect(sample(text, "llm_scheduler_concurrency_limit")).toBe(2);
    await scheduler.update({ maxConcurrency: 3 });
    (await queued).release();
    for (const permit of held) permit.release();
    text = await registry.metrics();
    expect(sample(text, "llm_scheduler_concurrency_limit")).toBe(3);
    expect(sample(text, 'llm_scheduler_queued{priority="batch",scope="local"}')).toBe(0);
    expect(sample(text, 'llm_scheduler_running{priority="batch",scope="local"}')).toBe(0);
  });

  it("says in a label and the HELP text when the gauges are global, and honours a prefix", async () => {
    const { registry } = setUp({ scope: "global", prefix: "gw_" });
    const text = await registry.metrics();
    expect(text).toMatch(/# HELP gw_running .*every instance sharing the store/);
    expect(sample(text, 'gw_running{priority="batch",scope="global"}')).toBe(0);
    expect(text).not.toContain("llm_scheduler_");
  });

  it("also prints in the OpenMetrics format", async () => {
    const scheduler = createScheduler();
    const registry = new Registry<OpenMetricsContentType>();
    registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    collectMetrics(scheduler, { registry });
    await scheduler.run(() => 1);
    const text = await registry.metrics();
    expect(sample(text, 'llm_scheduler_requests_total{priority="interactive",outcome="completed"}')).toBe(1);
    expect(text.endsWith("# EOF\n")).toBe(true);
  });

  it("stop() removes its listeners and its series", async () => {
    const { scheduler, registry, collector } = setUp();
    collector.stop();
    await scheduler.run(() => 1);
    expect(await registry.metrics()).not.toContain("llm_scheduler_");
    expect(registry.getMetricsAsArray()).toHaveLength(0);
    expect(() => collectMetrics(scheduler, { registry })).not.toThrow();
  });

  it("refuses bad options with typed errors, and a second collector on the same names", () => {
    const { scheduler, registry } = setUp();
    const bad = [
      [{ registry, tenantLabel: { top: 0 } }, "Expected `tenantLabel.top` to be an integer from 1 to 1000"],
      [{ registry, tenantLabel: { tops: 3 } }, "Unknown option `tenantLabel.tops`"],
      [
        { registry, tenantLabel: { top: 3, halfLifeMs: 10 } },
        "Expected `tenantLabel.halfLifeMs` to be an integer from 1000 to 86400000, got `10` (number)",
      ],
      [{ registry, prefx: "x_" }, "Unknown option `prefx`; did you mean `prefix`?"],
      [{ registry, prefix: "bad prefix" }, "Expected `prefix` to be a Prometheus metric name prefix"],
      [{ registry, scope: "cluster" }, 'Expected `scope` to be "local" or "global"'],
      [{ registry, batches: {} }, "Expected `batches` to be an object with a statusCounts() method"],
      [{ registry: {} }, "Expected `registry` to be a prom-client Registry"],
    ] as const;
    for (const [options, message] of bad) {
      expect(() => collectMetrics(scheduler, options as never)).toThrow(SchedulerError);
      expect(() => collectMetrics(scheduler, options as never)).toThrow(message);
    }
    expect(() => collectMetrics(scheduler, { registry })).toThrow(/already been registered/);
  });
});

describe("collectMetrics on a registry that has one of its names", () => {
  it("throws and leaves the registry as it found it", () => {
    const registry = new Registry();
    const mine = new Gauge({ name: "llm_scheduler_queued", help: "the user's own", registers: [registry] });
    expect(() => collectMetrics(createScheduler(), { registry })).toThrow(/already been registered/);
    expect(registry.getMetricsAsArray()).toEqual([mine]);
  });
});

describe("collectMetrics with batches", () => {
  it("reads counts by status from any object with statusCounts(), sync or async", async () => {
    const counts = { batches: { in_progress: 2, completed: 5 }, items: { queued: 40, failed: 3 } };
    for (const batches of [{ statusCounts: () => counts }, { statusCounts: async () => counts }]) {
      const { registry } = setUp({ batches });
      const text = await registry.metrics();
      expect(sample(text, 'llm_scheduler_batches{status="in_progress"}')).toBe(2);
      expect(sample(text, 'llm_scheduler_batch_items{status="failed"}')).toBe(3);
    }
  });

  it("keeps serving the other series when statusCounts() throws", async () => {
    const batches = {
      statusCounts: (): never => {
        throw new Error("store down");
      },
    };
    const { registry } = setUp({ batches });
    const text = await registry.metrics();
    expect(text).toContain("# TYPE llm_scheduler_batches gauge");
    expect(sample(text, "llm_scheduler_concurrency_limit")).toBe(2);
  });
});

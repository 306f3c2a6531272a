import { describe, expect, it } from "vitest";
import { ClosedLoad, runFor } from "../../test/adaptive-load.js";
import { flush } from "../../test/harness.js";
import { VirtualClock } from "../clock.js";
import { ErrorCode, SchedulerError } from "../errors.js";
import type { LimitEvent } from "../events.js";
import { createScheduler } from "../scheduler.js";

const tunables = { controller: "aimd" as const, windowMs: 1_000, minSamples: 5, cooldownMs: 2_000 };
const lanes = { work: {} };

function setUp(range = { initial: 8, min: 2, max: 16 }, adaptive = {}) {
  const clock = new VirtualClock(0);
  const scheduler = createScheduler({
    clock,
    maxConcurrency: range,
    adaptive: { ...tunables, ...adaptive },
    priorities: lanes,
  });
  const events: LimitEvent[] = [];
  scheduler.on("limit", (event) => events.push(event));
  return { clock, scheduler, events };
}

/** Ends one task started now by `fail` (rejecting with it) after 10 ms of virtual time. */
async function failOnce(
  s: ReturnType<typeof setUp>,
  error: unknown,
  options: { signal?: AbortSignal } = {},
): Promise<void> {
  const done = s.scheduler
    .run(() => new Promise((_, reject) => s.clock.setTimer(() => reject(error), 10)), options)
    .catch(() => undefined);
  await runFor(s.clock, 20);
  await done;
}

const withStatus = (status: number): Error => Object.assign(new Error(`upstream ${status}`), { status });

describe("adaptive limit: increase", () => {
  it("adds increaseStep after each window that used the limit fully, up to max", async () => {
    const s = setUp({ initial: 4, min: 2, max: 7 });
    const load = new ClosedLoad(s.scheduler, s.clock, () => ({ ttfbMs: 20, runMs: 100 }));
    load.start(30);
    await runFor(s.clock, 1_100);
    expect(s.events[0]).toEqual({ limit: 5, previous: 4, reason: "increase" });
    await runFor(s.clock, 10_000);
    expect(s.scheduler.maxConcurrency).toBe(7);
    expect(s.scheduler.metrics().maxConcurrency).toBe(7);
    expect(s.events.every((event) => event.reason === "increase")).toBe(true);
    expect(s.events.map((event) => event.limit)).toEqual([5, 6, 7]);
    expect(load.violations).toEqual([]);
    load.stop();
  });

  it("does not grow a limit the load leaves unused", async () => {
    const s = setUp({ initial: 8, min: 2, max: 16 });
    const load = new ClosedLoad(s.scheduler, s.clock, () => ({ ttfbMs: 20, runMs: 100 }));
    load.start(3);
    await runFor(s.clock, 5_000);
    expect(load.starts).toBeGreaterThan(100);
    expect(s.events).toEqual([]);
    load.stop();
  });
});

describe("adaptive limit: overload", () => {
  const overloads: Array<[string, unknown]> = [
    ["an error with status 503", withStatus(503)],
    ["an error with status 429", withStatus(429)],
    ["an error with statusCode 503", Object.assign(new Error("busy"), { statusCode: 503 })],
    ["an error with response.status 429", Object.assign(new Error("limited"), { response: { status: 429 } })],
    ["a rejected Response-like 503", { status: 503, ok: false }],
    ["ECONNREFUSED", Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })],
    [
      "ECONNRESET as a cause",
      new Error("socket", { cause: Object.assign(new Error("x"), { code: "ECONNRESET" }) }),
    ],
    ["fetch's TypeError", new TypeError("fetch failed")],
  ];
  for (const [name, error] of overloads) {
    it(`multiplies the limit by overloadFactor on ${name}`, async () => {
      const s = setUp();
      await failOnce(s, error);
      expect(s.events).toEqual([{ limit: 6, previous: 8, reason: "overload" }]);
    });
  }

  it("counts a returned Response with status 429 as overload", async () => {
    const s = setUp();
    await s.scheduler.run(() => ({ status: 429, ok: false }));
    expect(s.events).toEqual([{ limit: 6, previous: 8, reason: "overload" }]);
  });

  it("survives a limit listener that throws: the change holds and the throw is an error event", async () => {
    const s = setUp();
    const errors: unknown[] = [];
    s.scheduler.on("error", ({ error }) => errors.push(error));
    s.scheduler.on("limit", () => {
      throw new Error("listener bug");
    });
    await failOnce(s, withStatus(503));
    expect(s.scheduler.maxConcurrency).toBe(6);
    expect(errors).toEqual([new Error("listener bug")]);
    expect(await s.scheduler.run(() => "still runs")).toBe("still runs");
  });

  it("counts a run timeout as overload", async () => {
    const s = setUp();
    const done = s.scheduler
      .run(() => new Promise(() => {}), { timeoutMs: 50 })
      .catch((e: unknown) => e as SchedulerError);
    await runFor(s.clock, 60);
    expect(((await done) as SchedulerError).code).toBe(ErrorCode.RUN_TIMEOUT);
    expect(s.events).toEqual([{ limit: 6, previous: 8, reason: "overload" }]);
  });

  it("never counts a client abort, a preemption or another failure", async () => {
    const s = setUp();
    const controller = new AbortController();
    const aborted = s.scheduler
      .run(() => new Promise(() => {}), { signal: controller.signal })
      .catch((e: unknown) => e as SchedulerError);
    await flush();
    controller.abort();
    expect(((await aborted) as SchedulerError).code).toBe(ErrorCode.ABORTED);
    await failOnce(s, new SchedulerError(ErrorCode.ABORTED, "client left"));
    await failOnce(s, Object.assign(new Error("preempted"), { code: "PREEMPTED" }));
    await failOnce(s, withStatus(500));
    await failOnce(s, withStatus(400));
    await failOnce(s, new Error("bad json"));
    await s.scheduler.run(() => ({ status: 200 }));
    expect(s.events).toEqual([]);
  });

  it("cuts once per cool-down, and ignores overloads of tasks started before the cut", async () => {
    const s = setUp({ initial: 16, min: 2, max: 16 });
    const started = [0, 1, 2].map(() =>
      s.scheduler
        .run(() => new Promise((_, reject) => s.clock.setTimer(() => reject(withStatus(503)), 10)))
        .catch(() => undefined),
    );
    await runFor(s.clock, 20);
    await Promise.all(started);
    expect(s.events.map((e) => e.limit)).toEqual([12]);
    await runFor(s.clock, 500);
    await failOnce(s, withStatus(503)); // started after the cut, but within the cool-down
    expect(s.events.map((e) => e.limit)).toEqual([12]);
    await runFor(s.clock, 2_000);
    await failOnce(s, withStatus(503));
    expect(s.events.map((e) => e.limit)).toEqual([12, 9]);
  });

  it("never goes below min, nor below the sum of reserved", async () => {
    const clock = new VirtualClock(0);
    const scheduler = createScheduler({
      clock,
      maxConcurrency: { initial: 8, min: 1, max: 16 },
      adaptive: { ...tunables, cooldownMs: 0 },
      priorities: { chat: { reserved: 2 }, batch: { reserved: 1 } },
    });
    for (let i = 0; i < 20; i++) {
      await scheduler.run(() => Promise.reject(withStatus(503))).catch(() => undefined);
      clock.advance(1);
    }
    expect(scheduler.maxConcurrency).toBe(3);
    expect(scheduler.options.adaptive?.floor).toBe(3);
  });
});

describe("adaptive limit: latency guard", () => {
  it("cuts by latencyFactor when a window's median time to first byte is over its baseline", async () => {
    const s = setUp({ initial: 10, min: 2, max: 10 });
    let slow = false;
    const load = new ClosedLoad(s.scheduler, s.clock, () => ({ ttfbMs: slow ? 50 : 40, runMs: 100 }));
    load.start(10);
    await runFor(s.clock, 5_000);
    expect(s.events).toEqual([]); // at max: no increase, steady latency: no cut
    slow = true;
    await runFor(s.clock, 1_500);
    expect(s.events[0]).toMatchObject({ limit: 9, previous: 10, reason: "latency", baselineMs: 40 });
    expect(s.events[0]!.medianMs).toBe(50);
    load.stop();
  });

  it("reads run time per output token when tasks report usage, and cuts in proportion far over it", async () => {
    const s = setUp({ initial: 10, min: 2, max: 10 });
    let msPerToken = 10;
    const tasks = async (): Promise<void> => {
      while (s.clock.now() < 8_000) {
        await s.scheduler.run(async ({ reportUsage }) => {
          await new Promise<void>((resolve) => s.clock.setTimer(() => resolve(), 10 * msPerToken));
          reportUsage({ inputTokens: 50, outputTokens: 10 });
        });
      }
    };
    const clients = Array.from({ length: 10 }, tasks);
    await runFor(s.clock, 4_000);
    expect(s.events).toEqual([]);
    msPerToken = 20;
    await runFor(s.clock, 4_500);
    await Promise.all(clients);
    // 2x the baseline: 1.15 × 10 / 20 = 0.58 of the limit, held to overloadFactor (0.75).
    expect(s.events[0]).toMatchObject({ limit: 7, reason: "latency", baselineMs: 10, medianMs: 20 });
  });

  it("ignores latency while latencyTolerance is Infinity", async () => {
    const s = setUp({ initial: 10, min: 2, max: 10 }, { latencyTolerance: Number.POSITIVE_INFINITY });
    let ttfbMs = 20;
    const load = new ClosedLoad(s.scheduler, s.clock, () => ({ ttfbMs, runMs: 200 }));
    load.start(10);
    await runFor(s.clock, 3_000);
    ttfbMs = 150;
    await runFor(s.clock, 3_000);
    expect(s.events).toEqual([]);
    load.stop();
  });
});

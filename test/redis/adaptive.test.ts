import type { LimitEvent } from "@llm-scheduler/core";
import { fixedKeys } from "@llm-scheduler/redis/layout";
import { afterEach, describe, expect, it } from "vitest";
import { type Instance, instance, sleep, useRedisServer, waitFor } from "./helpers.js";

const redis = useRedisServer({ admin: true });
let open: Instance[] = [];
let prefixes = 0;

afterEach(async () => {
  await Promise.all(open.map((gateway) => gateway.close()));
  open = [];
});

const overloaded = (): Promise<never> => Promise.reject(Object.assign(new Error("busy"), { status: 503 }));

function adaptiveGateways(
  count: number,
  adaptive: Record<string, number> = { cooldownMs: 0 },
): { prefix: string; list: Instance[]; events: LimitEvent[][] } {
  const prefix = `adaptive${++prefixes}:`;
  const list = Array.from({ length: count }, () =>
    instance(
      redis.server.url,
      { prefix, leaseMs: 3_000 },
      {
        maxConcurrency: { initial: 8, min: 2, max: 16 },
        adaptive,
        priorities: { work: { queueTimeoutMs: 20_000 } },
      },
    ),
  );
  const events = list.map((gateway) => {
    const seen: LimitEvent[] = [];
    gateway.scheduler.on("limit", (event) => seen.push(event));
    return seen;
  });
  open.push(...list);
  return { prefix, list, events };
}

async function globalLimit(prefix: string): Promise<{ max: number; epoch: number }> {
  const [max, epoch] = await redis.admin.hmget(fixedKeys(prefix).state, "max", "le");
  return { max: Number(max), epoch: Number(epoch ?? 0) };
}

describe("adaptive limit on a shared Redis store", () => {
  it("cuts the one global limit once when two instances see the same overload, and both follow it", async () => {
    const { prefix, list, events } = adaptiveGateways(2);
    const [a, b] = list as [Instance, Instance];
    // Both connected and configured: one task each.
    await Promise.all(list.map((gateway) => gateway.scheduler.run(() => "ready")));
    await a.scheduler.run(overloaded).catch(() => undefined);
    await waitFor(() => a.scheduler.maxConcurrency === 6);
    expect(await globalLimit(prefix)).toEqual({ max: 6, epoch: 1 });
    // B saw the same overload with the old epoch: its cut is refused, and it learns the global limit.
    await b.scheduler.run(overloaded).catch(() => undefined);
    await waitFor(() => b.scheduler.maxConcurrency === 6);
    expect(await globalLimit(prefix)).toEqual({ max: 6, epoch: 1 });
    expect(events[0]).toEqual([{ limit: 6, previous: 8, reason: "overload" }]);
    expect(events[1]).toEqual([{ limit: 6, previous: 8, reason: "shared" }]);
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  });

  it("holds the global limit across both instances after a change", async () => {
    const { prefix, list } = adaptiveGateways(2);
    await Promise.all(list.map((gateway) => gateway.scheduler.run(() => "ready")));
    await list[0]!.scheduler.run(overloaded).catch(() => undefined); // 8 -> 6
    await waitFor(async () => (await globalLimit(prefix)).max === 6);
    // A later configure (an update on the other instance) keeps the global limit.
    await list[1]!.scheduler.update({ priorities: { work: { weight: 2 } } });
    expect((await globalLimit(prefix)).max).toBe(6);
    let inFlight = 0;
    let peak = 0;
    const work = async (): Promise<void> => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await sleep(20);
      inFlight--;
    };
    await Promise.all(
      list.flatMap((gateway) => Array.from({ length: 15 }, () => gateway.scheduler.run(work))),
    );
    expect(peak).toBe(6);
  });

  it("sets the global limit from update() on any instance, whatever its epoch", async () => {
    const { prefix, list } = adaptiveGateways(2);
    await Promise.all(list.map((gateway) => gateway.scheduler.run(() => "ready")));
    await list[0]!.scheduler.run(overloaded).catch(() => undefined); // epoch 1
    await waitFor(async () => (await globalLimit(prefix)).epoch === 1);
    await list[1]!.scheduler.update({ maxConcurrency: 12 });
    await waitFor(async () => (await globalLimit(prefix)).max === 12);
    await waitFor(() => list[1]!.scheduler.maxConcurrency === 12);
    expect((await globalLimit(prefix)).epoch).toBe(2);
  });
});

describe("adaptive limit on a shared Redis store, growing", () => {
  it("raises the one global limit while the instances use it, and each follows it", async () => {
    // Run times here are the machine's timer jitter, not an upstream's load: the latency guard is off.
    const tunables = {
      windowMs: 30,
      minSamples: 4,
      cooldownMs: 0,
      latencyTolerance: Number.POSITIVE_INFINITY,
    };
    const { prefix, list, events } = adaptiveGateways(2, tunables);
    const work = async (): Promise<void> => sleep(5);
    const until = performance.now() + 1_500;
    const client = async (gateway: Instance): Promise<void> => {
      while (performance.now() < until) await gateway.scheduler.run(work);
    };
    await Promise.all(list.flatMap((gateway) => Array.from({ length: 20 }, () => client(gateway))));
    const global = await globalLimit(prefix);
    expect(global.max).toBeGreaterThan(8);
    expect(global.max).toBeLessThanOrEqual(16);
    const increases = events.flat().filter((event) => event.reason === "increase");
    expect(increases.length).toBeGreaterThan(0);
    // Each accepted increase moved the global limit by one step from where it was.
    for (const event of increases) expect(event.limit - event.previous).toBeLessThanOrEqual(2);
    for (const gateway of list) expect(gateway.scheduler.maxConcurrency).toBeLessThanOrEqual(global.max);
    expect(global.epoch).toBeGreaterThanOrEqual(increases.length);
  });
});

import type { Permit } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import {
  type Instance,
  instance,
  redisState,
  scriptCalls,
  sleep,
  useRedisServer,
  waitFor,
  waitForEmpty,
} from "./helpers.js";

const redis = useRedisServer({ admin: true });
let open: Instance[] = [];
let prefixes = 0;

afterEach(async () => {
  await Promise.all(open.map((gateway) => gateway.close()));
  open = [];
});

const PRIORITIES = {
  interactive: { weight: 5, queueTimeoutMs: 20_000 },
  batch: { weight: 1, queueTimeoutMs: 20_000 },
};

function gateways(count: number, maxConcurrency: number, store = {}): { prefix: string; list: Instance[] } {
  const prefix = `multi${++prefixes}:`;
  const list = Array.from({ length: count }, () =>
    instance(
      redis.server.url,
      { prefix, leaseMs: 3_000, ...store },
      { maxConcurrency, priorities: PRIORITIES },
    ),
  );
  open.push(...list);
  return { prefix, list };
}

describe("several instances on one Redis", () => {
  it("hold one global limit together", async () => {
    const { prefix, list } = gateways(3, 4);
    let inFlight = 0;
    let peak = 0;
    const work = async (): Promise<void> => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await sleep(15);
      inFlight--;
    };
    const runs = list.flatMap((gateway, g) =>
      Array.from({ length: 20 }, (_, i) =>
        gateway.scheduler.run(work, { priority: i % 2 === 0 ? "batch" : "interactive", tenant: `t${g}` }),
      ),
    );
    await Promise.all(runs);
    expect(peak).toBe(4);
    // releases go with the store's next call, which may wait for the reply of the one out
    await waitForEmpty(redis.admin, prefix, 2_000);
    for (const gateway of list) expect(gateway.errors).toEqual([]);
  });

  it("start interactive work queued on one instance before batch work queued earlier on another", async () => {
    const { list } = gateways(2, 1);
    const [a, b] = list as [Instance, Instance];
    const holder = await a.scheduler.acquire({ priority: "batch" });
    const order: string[] = [];
    const batch = Array.from({ length: 3 }, (_, i) =>
      a.scheduler.run(() => void order.push(`batch${i}`), { priority: "batch" }),
    );
    await waitFor(() => a.store.depth("batch") === 3, 2_000, "batch queued");
    const interactive = b.scheduler.run(() => void order.push("interactive"), { priority: "interactive" });
    await waitFor(() => b.store.depth("interactive") === 1, 2_000, "interactive queued");
    holder.release();
    await Promise.all([...batch, interactive]);
    expect(order[0]).toBe("interactive");
  });

  it("give tenants turns across instances", async () => {
    const { list } = gateways(2, 1);
    const [a, b] = list as [Instance, Instance];
    const holder = await a.scheduler.acquire({ priority: "batch" });
    const order: string[] = [];
    const runs = [];
    for (let i = 0; i < 3; i++) {
      runs.push(a.scheduler.run(() => void order.push("A"), { priority: "batch", tenant: "A" }));
    }
    await waitFor(() => a.store.depth("batch") === 3, 2_000, "A queued");
    runs.push(b.scheduler.run(() => void order.push("B"), { priority: "batch", tenant: "B" }));
    await waitFor(() => b.store.depth("batch") === 4, 2_000, "B queued");
    holder.release();
    await Promise.all(runs);
    expect(order).toEqual(["A", "B", "A", "A"]);
  });

  it("acquire a free slot in one round trip and release it in one", async () => {
    const { prefix, list } = gateways(1, 2, { leaseMs: 60_000, pollMs: 60_000 });
    const gateway = list[0]!;
    await waitFor(() => gateway.store.status === "connected", 2_000, "connected");
    await gateway.scheduler.run(() => {}); // warm up
    await waitFor(
      async () => (await redisState(redis.admin, prefix)).running === 0,
      1_000,
      "warm-up released",
    );
    const before = await scriptCalls(redis.admin);
    const permit = await gateway.scheduler.acquire();
    const afterAcquire = await scriptCalls(redis.admin);
    permit.release();
    await waitFor(async () => (await scriptCalls(redis.admin)) > afterAcquire, 1_000, "release");
    expect(afterAcquire - before).toBe(1);
    expect((await scriptCalls(redis.admin)) - afterAcquire).toBe(1);
  });

  it("hear of grants by pub/sub at once, without polling Redis while they wait", async () => {
    const { list } = gateways(2, 1, { leaseMs: 60_000, pollMs: 60_000 });
    const [a, b] = list as [Instance, Instance];
    const holder = await a.scheduler.acquire();
    let granted: Permit | undefined;
    const waiting = b.scheduler.acquire().then((permit) => {
      granted = permit;
    });
    await waitFor(() => b.store.depth("interactive") === 1, 2_000, "queued");
    const before = await scriptCalls(redis.admin);
    await sleep(500);
    expect((await scriptCalls(redis.admin)) - before).toBe(0);
    const released = performance.now();
    holder.release();
    await waiting;
    expect(performance.now() - released).toBeLessThan(200);
    granted!.release();
  });
});

import type { SchedulerEvents } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import { type Instance, instance, redisState, sleep, useRedisServer, waitFor } from "./helpers.js";

const redis = useRedisServer({ admin: true });
let open: Instance[] = [];

afterEach(async () => {
  await Promise.all(open.map((gateway) => gateway.close()));
  open = [];
});

const PRIORITIES = {
  interactive: { weight: 1, targetWaitMs: 100, queueTimeoutMs: 20_000 },
  batch: { weight: 1, queueTimeoutMs: 60_000 },
};

describe("wait targets with several instances on one Redis", () => {
  it("a raise on one instance reserves slots for every instance, within the global limit", async () => {
    const prefix = "targets1:";
    const options = {
      maxConcurrency: 4,
      priorities: PRIORITIES,
      waitTargets: { windowMs: 300, minSamples: 5, calmWindows: 100 },
    };
    const chat = instance(redis.server.url, { prefix, leaseMs: 3_000 }, options);
    const bulk = instance(redis.server.url, { prefix, leaseMs: 3_000 }, options);
    open.push(chat, bulk);
    const shares: Array<SchedulerEvents["share"]> = [];
    chat.scheduler.on("share", (event) => shares.push(event));
    let inFlight = 0;
    let peak = 0;
    const work = (ms: number) => async (): Promise<void> => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await sleep(ms);
      inFlight--;
    };
    // The other instance keeps every slot busy with 800 ms batch work: chat without a reserved slot would
    // wait for one to end, most of 800 ms at the 95th percentile.
    const batch = Array.from({ length: 80 }, () =>
      bulk.scheduler.run(work(800), { priority: "batch", tenant: "bulk" }).catch(() => {}),
    );
    // Chat arrives once batch holds every slot: the hard case, and the same one on every run (chat
    // first would close its first window at once, chat last only after a batch item ends).
    await waitFor(() => inFlight === 4, 5_000, "batch holding every slot");
    const waits: Array<{ at: number; waitMs: number }> = [];
    chat.scheduler.on("started", ({ priority, waitMs }) => {
      if (priority === "interactive") waits.push({ at: performance.now(), waitMs });
    });
    const began = performance.now();
    const chats: Promise<unknown>[] = [];
    while (performance.now() - began < 6_000) {
      chats.push(chat.scheduler.run(work(30), { priority: "interactive", tenant: "chat" }));
      await sleep(40);
    }
    await Promise.all(chats);
    expect(shares.some((event) => event.reason === "above-target" && event.reserved >= 1)).toBe(true);
    const share = chat.scheduler.metrics().priorities.interactive!.share!;
    expect(share.reserved).toBe(0);
    expect(share.effectiveReserved).toBeGreaterThanOrEqual(1);
    // Once raised, chat starts on the reserved slot although the other instance queued batch work first.
    // Its first window closes only when a batch item ends and lets chat start (no start, no sample); each
    // raise takes a slot when the next batch item ends, and the chats queued until then drain (about 4 s
    // in all): the last second and a half, after both.
    const late = waits
      .filter((w) => w.at - began > 4_500)
      .map((w) => w.waitMs)
      .sort((a, b) => a - b);
    expect(late.length).toBeGreaterThan(10);
    // Far below a batch item's 800 ms, with room for the lease round trips on a busy 2-core machine.
    expect(late[Math.ceil(0.95 * late.length) - 1]).toBeLessThan(300);
    expect(peak).toBeLessThanOrEqual(4);
    await Promise.all(batch.slice(0, 1));
    for (const gateway of [chat, bulk]) await gateway.scheduler.close({ timeoutMs: 0 }).catch(() => {});
    await waitFor(async () => (await redisState(redis.admin, prefix)).running === 0, 5_000, "slots back");
    expect(chat.errors).toEqual([]);
  });
});

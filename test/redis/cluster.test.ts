import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { RedisStore } from "@llm-scheduler/redis";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./helpers.js";
import { type RedisCluster, startRedisCluster } from "./redis-cluster.js";

let cluster: RedisCluster;
let admin: Cluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
  admin = new Cluster([...cluster.urls]);
}, 30_000);
afterAll(async () => {
  await admin?.quit();
  await cluster?.stop();
});

const OPTIONS = { maxConcurrency: 3, priorities: { a: { queueTimeoutMs: 30_000 } } };

/** Every key on every master, with its hash slot. */
async function keysWithSlots(): Promise<{ key: string; slot: number }[]> {
  const keys = (await Promise.all(admin.nodes("master").map((node) => node.keys("*")))).flat();
  return Promise.all(keys.map(async (key) => ({ key, slot: Number(await admin.cluster("KEYSLOT", key)) })));
}

describe("Redis Cluster (three masters)", () => {
  it("serves one scheduler from a cluster: one slot, one global limit, grants by pub/sub", async () => {
    const errors: unknown[] = [];
    const onError = (error: unknown): void => void errors.push(error);
    // one store opens its own Cluster from node URLs, the other reuses a Cluster client
    const own = new RedisStore({ cluster: [...cluster.urls], prefix: "llm:", onError });
    const client = new Cluster([...cluster.urls]);
    const reused = new RedisStore({ client, prefix: "llm:", onError });
    const schedulers: Scheduler[] = [own, reused].map((store) => createScheduler({ ...OPTIONS, store }));
    const [first, second] = schedulers as [Scheduler, Scheduler];

    const held = await Promise.all([0, 1, 2].map(() => first.acquire()));
    let grantedAt = 0;
    const waiting = second.acquire().then((permit) => {
      grantedAt = performance.now();
      return permit;
    });
    await waitFor(() => reused.depth("a") === 1, 5_000, "one waiting on the second instance");

    const keys = await keysWithSlots();
    expect(keys.map((entry) => entry.key)).toContain("{llm:}state");
    expect(new Set(keys.map((entry) => entry.slot)).size).toBe(1); // every key in one slot

    const releasedAt = performance.now();
    held[0]!.release();
    const permit = await waiting;
    // heard by pub/sub: the safety poll comes every 3.3 s (leaseMs / 3)
    expect(grantedAt - releasedAt).toBeLessThan(1_500);
    permit.release();
    for (const other of held.slice(1)) other.release();

    let running = 0;
    let most = 0;
    const task = async (): Promise<void> => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
    };
    await Promise.all(
      schedulers.flatMap((scheduler) => Array.from({ length: 20 }, () => scheduler.run(task))),
    );
    expect(most).toBe(3);
    // the Lua went as one Function library, loaded on every master, and was called with FCALL
    const libraries = await Promise.all(
      admin.nodes("master").map((node) => node.call("FUNCTION", "LIST") as Promise<unknown[][]>),
    );
    expect(libraries.map((list) => list.length)).toEqual([1, 1, 1]);
    const stats = await Promise.all(admin.nodes("master").map((node) => node.info("commandstats")));
    expect(stats.some((info) => /cmdstat_fcall:calls=[1-9]/.test(info))).toBe(true);
    expect(stats.some((info) => info.includes("cmdstat_evalsha"))).toBe(false);
    await waitFor(async () => (await admin.hget("{llm:}state", "running")) === "0", 3_000, "all released");
    expect(await admin.hget("{llm:}state", "queued")).toBe("0");

    for (const scheduler of schedulers) await scheduler.close();
    await own.close();
    await reused.close();
    await client.quit();
    expect(errors).toEqual([]);
  });

  it("keeps a prefix that carries its own hash tag", async () => {
    const store = new RedisStore({ cluster: [...cluster.urls], prefix: "{gpt}:pool-a:" });
    const scheduler = createScheduler({ ...OPTIONS, store });
    await expect(scheduler.run(() => "ran")).resolves.toBe("ran");
    expect(await admin.hget("{gpt}:pool-a:state", "max")).toBe("3");
    await scheduler.close();
    await store.close();
  });
});

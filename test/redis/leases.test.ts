import { createScheduler, type Permit, type SchedulerError } from "@llm-scheduler/core";
import { RedisStore } from "@llm-scheduler/redis";
import { fixedKeys, keyList, scriptSource } from "@llm-scheduler/redis/layout";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { instance, redisState, useRedisServer, waitFor } from "./helpers.js";

const redis = useRedisServer({ admin: true });

const LEASE_MS = 600;
const OPTIONS = { maxConcurrency: 2, priorities: { a: { queueTimeoutMs: 30_000 } } };

/** An instance whose connection is cut without a goodbye: to Redis it looks like a crashed process. */
async function crashingInstance(prefix: string) {
  const client = new Redis(redis.server.url);
  client.on("error", () => {});
  const store = new RedisStore({ client, prefix, leaseMs: LEASE_MS });
  const scheduler = createScheduler({ ...OPTIONS, store });
  scheduler.on("error", () => {});
  return {
    store,
    scheduler,
    crash() {
      client.disconnect();
    },
    async cleanUp() {
      await scheduler.close({ timeoutMs: 100 });
      await store.close();
    },
  };
}

describe("leases", () => {
  it("give a crashed instance's slots back within leaseMs and purge its queued tickets", async () => {
    const prefix = "lease-crash:";
    const crashing = await crashingInstance(prefix);
    const held = [await crashing.scheduler.acquire(), await crashing.scheduler.acquire()];
    void crashing.scheduler.acquire().catch(() => {}); // queued on the instance that will crash
    const survivor = instance(redis.server.url, { prefix, leaseMs: LEASE_MS }, OPTIONS);
    const granted: Permit[] = [];
    const waiting = [survivor.scheduler.acquire(), survivor.scheduler.acquire()].map((p) =>
      p.then((permit) => void granted.push(permit)),
    );
    await waitFor(() => survivor.store.depth("a") === 3, 2_000, "three queued");

    crashing.crash();
    const crashedAt = performance.now();
    await Promise.all(waiting);
    const recoveredMs = performance.now() - crashedAt;

    expect(granted).toHaveLength(2);
    expect(recoveredMs).toBeLessThan(LEASE_MS + 500);
    expect(await redisState(redis.admin, prefix)).toEqual({ running: 2, queued: 0 });
    expect(await redis.admin.zscore(fixedKeys(prefix).instances, crashing.store.instanceId)).toBeNull();

    // A late release of a lapsed lease changes nothing: the slot is someone else's now.
    const keys = keyList(fixedKeys(prefix));
    const late = await redis.admin.eval(
      scriptSource("release"),
      keys.length,
      ...keys,
      prefix,
      "x",
      "",
      `${crashing.store.instanceId}:1`,
    );
    expect((late as unknown[])[0]).toBe(0);
    expect(await redisState(redis.admin, prefix)).toEqual({ running: 2, queued: 0 });

    for (const permit of [...granted, ...held]) permit.release();
    await waitFor(async () => (await redisState(redis.admin, prefix)).running === 0, 2_000, "released");
    await survivor.close();
    await crashing.cleanUp();
  });

  it("are renewed while tasks run longer than leaseMs", async () => {
    const prefix = "lease-renew:";
    const gateway = instance(redis.server.url, { prefix, leaseMs: 300 }, OPTIONS);
    const permit = await gateway.scheduler.acquire();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await redisState(redis.admin, prefix)).toEqual({ running: 1, queued: 0 });
    permit.release();
    await waitFor(async () => (await redisState(redis.admin, prefix)).running === 0, 2_000, "released");
    await gateway.close();
  });

  it("survive a FUNCTION FLUSH: the library is loaded again when a call finds it missing", async () => {
    const prefix = "lease-noscript:";
    const gateway = instance(redis.server.url, { prefix }, OPTIONS);
    await gateway.scheduler.run(() => {});
    await redis.admin.call("FUNCTION", "FLUSH");
    await expect(gateway.scheduler.run(() => "ran")).resolves.toBe("ran");
    expect(gateway.errors).toEqual([]);
    await gateway.close();
  });

  it("count a task that runs while Redis lost its lease (restart) once it is renewed again", async () => {
    const prefix = "lease-adopt:";
    const gateway = instance(redis.server.url, { prefix, leaseMs: 300 }, OPTIONS);
    const permit = await gateway.scheduler.acquire();
    await redis.admin.flushall();
    await waitFor(async () => (await redisState(redis.admin, prefix)).running === 1, 2_000, "adopted");
    const second = await gateway.scheduler.acquire();
    const third = gateway.scheduler.acquire();
    await waitFor(() => gateway.store.depth("a") === 1, 2_000, "third waits: the adopted task counts");
    permit.release();
    (await third).release();
    second.release();
    await waitFor(async () => (await redisState(redis.admin, prefix)).running === 0, 2_000, "released");
    await gateway.close();
  });

  it("are revoked when they lapsed while the instance stalled: the task's signal aborts and nothing leaks", async () => {
    const prefix = "lease-stall:";
    const stalled = instance(redis.server.url, { prefix, leaseMs: 300 }, OPTIONS);
    const other = instance(redis.server.url, { prefix, leaseMs: 300 }, OPTIONS);
    let abortedAt = 0;
    const ran = stalled.scheduler
      .run(
        ({ signal }) =>
          new Promise((_, reject) =>
            signal.addEventListener("abort", () => {
              abortedAt = performance.now();
              reject(signal.reason);
            }),
          ),
      )
      .catch((error: unknown) => error);
    const permit = await stalled.scheduler.acquire();
    const waiting = other.scheduler.acquire(); // both slots are taken: it waits in Redis
    await waitFor(() => other.store.depth("a") === 1, 2_000, "the other instance waits");

    // The event loop of this process blocks for twice leaseMs: no heartbeat, no renewal.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2 * 300);
    const resumedAt = performance.now();

    expect(((await ran) as SchedulerError).code).toBe("STORE_UNAVAILABLE");
    await waitFor(() => permit.signal.aborted, 1_000, "the permit's signal aborted");
    expect(abortedAt - resumedAt).toBeLessThan(500); // one heartbeat round trip after the stall (~10 ms)
    const granted = await waiting; // the slots went back to Redis and on to the other instance
    await stalled.scheduler.onIdle(); // nothing is left on the stalled scheduler's books
    expect(stalled.scheduler.metrics()).toMatchObject({ failed: 2, tenants: [] });
    permit.release(); // gone already: releasing it changes nothing
    await waitFor(
      async () => (await redisState(redis.admin, prefix)).running === 1,
      2_000,
      "the other's slot only",
    );
    granted.release();
    await waitFor(async () => (await redisState(redis.admin, prefix)).running === 0, 2_000, "released");
    expect(await redisState(redis.admin, prefix)).toEqual({ running: 0, queued: 0 });
    expect(stalled.errors).toEqual([]);
    await other.close();
    await stalled.close();
  });
});

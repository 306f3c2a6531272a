import { createScheduler } from "@llm-scheduler/core";
import { RedisStore } from "@llm-scheduler/redis";
import { afterEach, describe, expect, it } from "vitest";
import { type Instance, instance, redisState, useRedisServer, waitFor } from "./helpers.js";

const redis = useRedisServer({ admin: true });
let open: Instance[] = [];

afterEach(async () => {
  await Promise.all(open.map((gateway) => gateway.close()));
  open = [];
});

function gateway(prefix: string, scheduler: Parameters<typeof instance>[2]): Instance {
  const created = instance(redis.server.url, { prefix, leaseMs: 3_000 }, scheduler);
  open.push(created);
  return created;
}

describe("the Redis store under hostile input and operator mishaps", () => {
  it("keeps tenants apart whatever their names hold: braces, colons, spaces, other scripts, long ones", async () => {
    const tenants = ["{llm}", "a:b", "a", "a:b:c", "  ", "名前", "x".repeat(256), "{", "q:1:batch:a"];
    const { scheduler } = gateway("hostile-tenants:", {
      maxConcurrency: 1,
      priorities: { batch: { queueTimeoutMs: 10_000 } },
    });
    const first = await scheduler.acquire({ priority: "batch", tenant: "holder" });
    const order: string[] = [];
    const runs = tenants.map((tenant) =>
      scheduler.run(
        () => {
          order.push(tenant);
        },
        { priority: "batch", tenant },
      ),
    );
    first.release();
    await Promise.all(runs);
    // one start each, in turn (every tenant had one ticket), none merged with another
    expect(order).toEqual(tenants);
    expect(await redisState(redis.admin, "hostile-tenants:")).toEqual({ running: 0, queued: 0 });
  });

  it("refuses a preemption naming a priority that is not configured, with INVALID_OPTION", async () => {
    const store = new RedisStore({ url: redis.server.url, prefix: "hostile-preempt:" });
    try {
      expect(() =>
        createScheduler({ store, priorities: { interactive: { preempts: ["bulk"] }, batch: {} } }),
      ).toThrow(
        expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringContaining("preempts") }),
      );
    } finally {
      await store.close();
    }
  });

  it("takes a configuration of 800 priorities (more values than one Lua unpack can hold)", async () => {
    const priorities = Object.fromEntries(
      Array.from({ length: 800 }, (_, i) => [`p${i}`, { queueTimeoutMs: 10_000 }]),
    );
    const { scheduler } = gateway("hostile-priorities:", { maxConcurrency: 2, priorities });
    await expect(scheduler.run(() => "ran", { priority: "p799" })).resolves.toBe("ran");
    expect(await redisState(redis.admin, "hostile-priorities:")).toEqual({ running: 0, queued: 0 });
  });

  it("warns once through onError when Redis may evict its keys (maxmemory-policy allkeys-*)", async () => {
    await redis.admin.config("SET", "maxmemory-policy", "allkeys-lru");
    try {
      const { scheduler, errors } = gateway("hostile-eviction:", { maxConcurrency: 2 });
      await expect(scheduler.run(() => "ran")).resolves.toBe("ran");
      await waitFor(() => errors.length > 0, 2_000, "the warning");
      expect(errors).toHaveLength(1);
      expect((errors[0] as Error).message).toContain("maxmemory-policy is allkeys-lru");
    } finally {
      await redis.admin.config("SET", "maxmemory-policy", "noeviction");
    }
  });

  it("loads its Lua again after FUNCTION FLUSH and SCRIPT FLUSH without failing a call", async () => {
    const { scheduler, errors } = gateway("hostile-noscript:", { maxConcurrency: 2 });
    await expect(scheduler.run(() => "before")).resolves.toBe("before");
    await redis.admin.call("FUNCTION", "FLUSH");
    await redis.admin.script("FLUSH");
    const results = await Promise.all([0, 1, 2, 3].map((i) => scheduler.run(() => i)));
    expect(results).toEqual([0, 1, 2, 3]);
    expect(errors).toEqual([]);
  });
});

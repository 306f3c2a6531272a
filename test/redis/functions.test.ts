import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Instance, instance, redisState, useRedisServer } from "./helpers.js";
import { type RedisServer, startRedisServer } from "./redis-server.js";

const OPTIONS = { maxConcurrency: 2, priorities: { a: { queueTimeoutMs: 30_000 } } };

/** Calls per command name, from INFO commandstats. */
async function commandCalls(client: Redis): Promise<Record<string, number>> {
  const info = await client.info("commandstats");
  return Object.fromEntries(
    [...info.matchAll(/cmdstat_([\w|]+):calls=(\d+)/g)].map((match) => [match[1]!, Number(match[2])]),
  );
}

/** Ten tasks through one instance on `url`, two at a time; every one must run. */
async function runTen(gateway: Instance): Promise<number[]> {
  return Promise.all(Array.from({ length: 10 }, (_, i) => gateway.scheduler.run(async () => i)));
}

describe("the store's Lua as Redis Functions", () => {
  const redis = useRedisServer({ admin: true });
  let open: Instance[] = [];
  afterEach(async () => {
    await Promise.all(open.map((gateway) => gateway.close()));
    open = [];
  });

  it("loads one library and calls it with FCALL, never EVALSHA", async () => {
    await redis.admin.config("RESETSTAT");
    const gateway = instance(redis.server.url, { prefix: "fn-fcall:" }, OPTIONS);
    open.push(gateway);
    expect(await runTen(gateway)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const calls = await commandCalls(redis.admin);
    expect(calls.fcall).toBeGreaterThan(0);
    expect(calls.evalsha ?? 0).toBe(0);
    const libraries = (await redis.admin.call("FUNCTION", "LIST")) as unknown[][];
    expect(libraries.length).toBe(1);
    expect(String(libraries[0]![1])).toMatch(/^llm_scheduler_[0-9a-f]{16}$/);
    expect(gateway.errors).toEqual([]);
  });

  it("loads the library once again when Redis forgot it, for every call waiting on it", async () => {
    const gateway = instance(redis.server.url, { prefix: "fn-flush:" }, OPTIONS);
    open.push(gateway);
    await gateway.scheduler.run(() => {});
    await redis.admin.config("RESETSTAT");
    await redis.admin.call("FUNCTION", "FLUSH");
    expect(await runTen(gateway)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const calls = await commandCalls(redis.admin);
    expect(calls["function|load"]).toBe(1);
    expect(calls.evalsha ?? 0).toBe(0);
    expect(await redisState(redis.admin, "fn-flush:")).toEqual({ running: 0, queued: 0 });
    expect(gateway.errors).toEqual([]);
  });
});

describe("on a Redis that refuses FUNCTION (before 7, or a managed service)", () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await startRedisServer({ args: ["--rename-command", "FUNCTION", ""] });
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    await admin.quit();
    await server.stop();
  });

  it("falls back to scripts by SHA (EVALSHA) and schedules the same", async () => {
    const gateway = instance(server.url, { prefix: "fn-refused:" }, OPTIONS);
    try {
      expect(await runTen(gateway)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      const calls = await commandCalls(admin);
      expect(calls.evalsha).toBeGreaterThan(0);
      expect(calls.fcall ?? 0).toBe(0);
      expect(await redisState(admin, "fn-refused:")).toEqual({ running: 0, queued: 0 });
      expect(gateway.errors).toEqual([]);
    } finally {
      await gateway.close();
    }
  });
});

import { createScheduler, ErrorCode } from "@llm-scheduler/core";
import { RedisStore } from "@llm-scheduler/redis";
import { fixedKeys } from "@llm-scheduler/redis/layout";
import { afterEach, describe, expect, it } from "vitest";
import { type Instance, instance, useRedisServer, waitFor } from "./helpers.js";

const redis = useRedisServer({ admin: true });
let open: Instance[] = [];
let prefixes = 0;

afterEach(async () => {
  await Promise.all(open.map((gateway) => gateway.close()));
  open = [];
});

/** Each priority's weight as the configuration in Redis has it (the `cf` field of the state hash). */
async function weightsInRedis(prefix: string): Promise<Record<string, number>> {
  const raw = await redis.admin.hget(fixedKeys(prefix).state, "cf");
  const fields = Object.entries(JSON.parse(raw ?? "{}") as Record<string, string>);
  return Object.fromEntries(
    fields.filter(([key]) => key.startsWith("cw|")).map(([key, weight]) => [key.slice(3), Number(weight)]),
  );
}

function weightsIn(gateway: Instance): Record<string, number> {
  return Object.fromEntries(gateway.scheduler.options.priorities.map((p) => [p.name, p.weight]));
}

describe("update() on the Redis store", () => {
  it("takes preemption through update() and writes who preempts whom to Redis; a bad one changes nothing", async () => {
    const prefix = `update${++prefixes}:`;
    const gateway = instance(redis.server.url, { prefix, leaseMs: 3_000 }, {});
    open.push(gateway);
    await gateway.scheduler.run(() => "ready"); // connected and configured
    expect(await weightsInRedis(prefix)).toEqual({ interactive: 5, batch: 1 });

    // Called as the README calls it, without await: a refusal is a synchronous throw, no promise.
    expect(() =>
      gateway.scheduler.update({ priorities: { interactive: { weight: 9, preempts: ["nope"] } } }),
    ).toThrow(expect.objectContaining({ code: ErrorCode.INVALID_OPTION }));
    expect(weightsIn(gateway)).toEqual({ interactive: 5, batch: 1 });
    expect(gateway.scheduler.options.preemption).toBeNull();

    await gateway.scheduler.update({ priorities: { interactive: { weight: 7, preempts: ["batch"] } } });
    expect(weightsIn(gateway)).toEqual({ interactive: 7, batch: 1 });
    expect(await weightsInRedis(prefix)).toEqual({ interactive: 7, batch: 1 });
    const raw = await redis.admin.hget(fixedKeys(prefix).state, "cf");
    expect(JSON.parse(raw ?? "{}")).toMatchObject({ pe: { interactive: ["batch"] }, pm: { batch: 2 } });
    await expect(gateway.scheduler.run(() => "after", { priority: "batch" })).resolves.toBe("after");
    expect(gateway.errors).toEqual([]);
  });

  it("takes an update while Redis does not answer: resolves, reports the failure, writes it once Redis is back", async () => {
    const prefix = `update${++prefixes}:`;
    const gateway = instance(redis.server.url, { prefix, commandTimeoutMs: 200 }, {});
    open.push(gateway);
    await gateway.scheduler.run(() => "ready");
    redis.server.pause();
    try {
      await expect(
        gateway.scheduler.update({ priorities: { interactive: { weight: 7 } } }),
      ).resolves.toBeUndefined();
    } finally {
      redis.server.resume();
    }
    expect(weightsIn(gateway)).toEqual({ interactive: 7, batch: 1 });
    expect(gateway.errors.length).toBeGreaterThan(0);
    await waitFor(() => gateway.store.status === "connected", 5_000, "reconnected");
    await waitFor(async () => (await weightsInRedis(prefix)).interactive === 7, 5_000, "written to Redis");
    gateway.errors.length = 0;
  });

  it("takes preemption at creation too", async () => {
    const store = new RedisStore({ url: redis.server.url, prefix: `update${++prefixes}:` });
    const scheduler = createScheduler({ priorities: { a: { preempts: ["b"] }, b: {} }, store });
    expect(scheduler.options.preemption).not.toBeNull();
    await scheduler.close();
    await store.close();
  });
});

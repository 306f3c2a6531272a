import { fixedKeys, functionLibrary, keyList, LAYOUT_VERSION } from "@llm-scheduler/redis/layout";
import { describe, expect, it } from "vitest";
import { useRedisServer } from "./helpers.js";

const redis = useRedisServer({ admin: true });
const { source, functions } = functionLibrary();

/** ZRANGE key 0 -1 [WITHSCORES], as one flat list whichever protocol the client speaks. */
const zrange = async (key: string, ...withScores: string[]): Promise<unknown[]> =>
  ((await redis.admin.call("ZRANGE", key, 0, -1, ...withScores)) as unknown[]).flat();

/** The store's functions called directly as instance "b" under `prefix`. */
async function calls(prefix: string) {
  await redis.admin.call("FUNCTION", "LOAD", "REPLACE", source);
  const keys = keyList(fixedKeys(prefix));
  const call = (op: string, ...args: Array<string | number>) =>
    redis.admin.fcall(functions[op]!, keys.length, ...keys, prefix, "b", "", ...args);
  const configure = (maxWaitMs: number, max = 1) =>
    call(
      "configure",
      JSON.stringify({
        bk: "0",
        td: "-1 -1 -1 -1",
        mt: -1,
        fa: "0",
        ow: 1,
        tq: {},
        max,
        mq: -1,
        p: [{ n: "p", w: 1, r: 0, m: max, q: -1, a: maxWaitMs }],
      }),
      30_000,
      "",
      "0",
      "1",
      "0",
    );
  const enqueue = (seq: number, tenant: string, retry = false) =>
    call("enqueue", 30_000, `b:${seq}`, "p", tenant, 1, 0, retry ? "1" : "0", "", 0);
  return { call, configure, enqueue };
}

describe("key layout", () => {
  it("keeps a priority's arrival order only while it ages, built from its waiting tickets when aging is turned on", async () => {
    const prefix = "layout-age:";
    const { call, configure, enqueue } = await calls(prefix);
    await configure(-1);
    await enqueue(1, "t1"); // granted: the limit is 1
    await enqueue(2, "t1");
    await enqueue(3, "t2", true); // a retry: first in its tenant's queue
    await enqueue(4, "t1");
    expect(await redis.admin.exists(`${prefix}age:p`)).toBe(0);
    expect(await redis.admin.lrange(`${prefix}q:1:p:t1`, 0, -1)).toEqual(["b:2", "b:4"]); // a list per tenant
    expect(await redis.admin.lrange(`${prefix}q:1:p:t2`, 0, -1)).toEqual(["b:3"]);

    await configure(1_000);
    expect(await zrange(`${prefix}age:p`, "WITHSCORES")).toEqual(["b:2", "1", "b:3", "2", "b:4", "3"]);
    await call("release", "b:1"); // grants b:2 and takes it out of the order
    await enqueue(5, "t2"); // joins the order while the priority ages
    expect(await zrange(`${prefix}age:p`)).toEqual(["b:3", "b:4", "b:5"]);

    await configure(-1);
    expect(await redis.admin.exists(`${prefix}age:p`)).toBe(0);
    await call("release", "b:2"); // the queues work on without it
    expect(await redis.admin.zscore(`${prefix}leases`, "b:3")).not.toBeNull();
  });

  it("keeps a tenant's queue as a list, read a few heads at a time and popped once per call", async () => {
    const prefix = "layout-queue:";
    const { call, configure, enqueue } = await calls(prefix);
    await configure(-1, 12);
    for (let seq = 1; seq <= 32; seq++) await enqueue(seq, "t1"); // 1..12 granted, 13..32 wait
    await enqueue(33, "t1", true); // a retry: the front
    const ids = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => `b:${from + i}`);
    // step: lease 30 s, 10 releases, 1 removal (b:25), no usage, nothing enqueued
    const reply = (await call("step", 30_000, 10, 1, 0, ...ids(1, 10), "b:25")) as unknown[];
    expect(reply[2]).toEqual(["b:33", ...ids(13, 21)]); // more starts than one read of the front
    expect(await redis.admin.lrange(`${prefix}q:1:p:t1`, 0, -1)).toEqual([...ids(22, 24), ...ids(26, 32)]);
  });

  it("writes its version with the configuration and refuses keys of another version", async () => {
    const prefix = "layout-version:";
    const { call, configure, enqueue } = await calls(prefix);
    await configure(-1);
    expect(await redis.admin.hget(`${prefix}state`, "lv")).toBe(String(LAYOUT_VERSION));
    await enqueue(1, "t1");
    await redis.admin.hset(`${prefix}state`, "lv", LAYOUT_VERSION + 1);
    await expect(call("release", "b:1")).rejects.toThrow(
      `layout ${LAYOUT_VERSION + 1}, this instance uses ${LAYOUT_VERSION}: stop the instances of the other version`,
    );
    expect(await redis.admin.zscore(`${prefix}leases`, "b:1")).not.toBeNull(); // nothing changed
  });

  it("writes a call's new leases once, at its end: one granted and taken back in the same call leaves none", async () => {
    const prefix = "layout-leases:";
    const { call, configure } = await calls(prefix);
    await configure(-1);
    const ticket = (seq: number) => [`b:${seq}`, "p", "t1", 1, 0, "0", "", 0];
    // step: lease 30 s, no releases, one removal (b:1), no usage, then b:1 and b:2 enqueued
    const reply = (await call("step", 30_000, 0, 1, 0, "b:1", ...ticket(1), ...ticket(2))) as unknown[];
    expect(reply[3]).toEqual([1, 0]); // b:1 granted at once, b:2 queued (limit 1) ...
    expect(reply[2]).toEqual(["b:2"]); // ... and granted when b:1 was taken back
    expect(await zrange(`${prefix}leases`)).toEqual(["b:2"]);
    expect(await redis.admin.exists(`${prefix}tk:b:1`)).toBe(0);
    expect(await redis.admin.smembers(`${prefix}owned:b`)).toEqual([]); // queued and granted in one call
  });

  it("keeps the configuration in one field, and drops the fields of a configuration of layout 2", async () => {
    const prefix = "layout-config:";
    const { configure, enqueue } = await calls(prefix);
    const legacy = { pn: "1", "pn|1": "old", "cw|old": "1", "cm|old": "1", mq: "5", bk: "0", twn: "0" };
    await redis.admin.hset(`${prefix}state`, { ...legacy, lv: "2", max: "1" });
    await redis.admin.hdel(`${prefix}state`, "lv"); // as written before the version was checked
    await configure(-1);
    const state = await redis.admin.hgetall(`${prefix}state`);
    for (const field of Object.keys(legacy)) expect(state).not.toHaveProperty(field);
    expect(JSON.parse(state.cf!)).toMatchObject({ pn: "1", "pn|1": "p", "cm|p": "1", mq: "-1", twn: "0" });
    expect(await enqueue(1, "t1")).toEqual([0, expect.anything(), [], [1]]); // granted at once
    const record = await redis.admin.hgetall(`${prefix}tk:b:1`); // the ticket's record, its fields named
    expect(record).toMatchObject({ c: "1", p: "p", t: "t1", b: "0" });
  });
});

import type { Permit } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { type Instance, instance, sleep, useRedisServer, waitFor } from "./helpers.js";

const redis = useRedisServer({ admin: true });
const PREFIX = "recovery:";
const SCHEDULER = { maxConcurrency: 3, priorities: { batch: { queueTimeoutMs: 20_000 } } };

function gateway(pollMs: number): Instance {
  return instance(redis.server.url, { prefix: PREFIX, leaseMs: 6_000, pollMs }, SCHEDULER);
}

describe("Redis loses its state while the connections stay up (FLUSHALL)", () => {
  it("holds grants until every instance that was live has checked in; a newcomer does not count", async () => {
    const a = gateway(100); // notices the loss within 0.1 s
    const b = gateway(1_500); // notices it only at its next heartbeat, up to 1.5 s later
    const held = [await a.scheduler.acquire(), await b.scheduler.acquire()];
    await sleep(1_700); // both heartbeats have seen two instances live

    await redis.admin.flushall();
    const flushedAt = performance.now();
    await waitFor(async () => (await redis.admin.hget(`${PREFIX}state`, "rec")) !== null, 2_000, "recovery");
    const newcomer = gateway(100); // started after the loss: knows no epoch, was in nobody's count
    const granted: number[] = [];
    const asked = [0, 1].map(() =>
      newcomer.scheduler.acquire({ priority: "batch" }).then((permit: Permit) => {
        granted.push(performance.now());
        return permit;
      }),
    );

    await waitFor(async () => (await redis.admin.hget(`${PREFIX}state`, "rec")) === null, 4_000, "check-ins");
    const resumedAt = performance.now();
    await waitFor(() => granted.length > 0, 2_000, "one of the newcomer's two started");
    await sleep(200);
    expect(granted).toHaveLength(1); // 2 running (a's and b's, re-registered) + 1 = the limit of 3
    expect(granted[0]!).toBeGreaterThanOrEqual(resumedAt - 50);
    expect(resumedAt - flushedAt).toBeLessThan(3_000); // check-ins, not the 6 s lease, ended it
    expect(b.store.status).toBe("connected");

    for (const permit of held) permit.release();
    const permits = await Promise.all(asked);
    expect(granted).toHaveLength(2);
    for (const permit of permits) permit.release();
    await Promise.all([a, b, newcomer].map((g) => g.close()));
  });
});

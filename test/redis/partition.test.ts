import { SchedulerError } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import { type Instance, instance, redisState, useRedisServer, waitFor } from "./helpers.js";
import { startTcpGate, type TcpGate } from "./tcp-gate.js";

const redis = useRedisServer({ admin: true });

const LEASE_MS = 600;
const OPTIONS = { maxConcurrency: 4, priorities: { a: { queueTimeoutMs: 30_000 } } };

/** Counts what runs on every instance at once, and when each task started and ended. */
function upstream() {
  const seen = { now: 0, most: 0, starts: [] as { who: string; at: number }[], ends: [] as number[] };
  const task =
    (who: string) =>
    ({ signal }: { signal: AbortSignal }): Promise<void> => {
      seen.now++;
      seen.most = Math.max(seen.most, seen.now);
      seen.starts.push({ who, at: performance.now() });
      return new Promise<void>((resolve) => {
        const end = (): void => {
          seen.now--;
          if (who === "cut") seen.ends.push(performance.now());
          resolve();
        };
        if (who === "cut") signal.addEventListener("abort", end, { once: true });
        else setTimeout(end, 50);
      });
    };
  return { seen, task };
}

let gate: TcpGate | null = null;
let gateways: Instance[] = [];
afterEach(async () => {
  gate?.thaw();
  await Promise.all(gateways.map((gateway) => gateway.close()));
  await gate?.close();
  gate = null;
  gateways = [];
});

async function partitioned(prefix: string, cutOptions: object) {
  gate = await startTcpGate(redis.server.port);
  const cut = instance(gate.url, { prefix, leaseMs: LEASE_MS, ...cutOptions }, OPTIONS);
  const other = instance(redis.server.url, { prefix, leaseMs: LEASE_MS }, OPTIONS);
  gateways = [cut, other];
  const { seen, task } = upstream();
  const cutRuns = [0, 1, 2, 3].map(() =>
    cut.scheduler.run(task("cut")).catch((error: unknown) => error as SchedulerError),
  );
  await waitFor(() => seen.now === 4, 3_000, "the cut-off instance holding every slot");
  const otherRuns = [0, 1, 2, 3].map(() => other.scheduler.run(task("other")));
  await waitFor(() => other.store.depth("a") === 4, 3_000, "four waiting on the other instance");
  gate.freeze();
  return { cut, other, seen, cutRuns, otherRuns, frozenAt: performance.now() };
}

describe("an instance cut off from Redis (a partition)", () => {
  it("fail-closed: stops every task before its lease lapses, so the others never exceed the limit", async () => {
    const run = await partitioned("partition-closed:", {});
    await Promise.all(run.otherRuns);
    const firstOther = Math.min(...run.seen.starts.filter((s) => s.who === "other").map((s) => s.at));

    expect(run.seen.most).toBe(4);
    expect(run.seen.ends).toHaveLength(4);
    for (const end of run.seen.ends) {
      expect(end).toBeLessThan(firstOther); // nothing ran on a lapsed lease
      expect(end - run.frozenAt).toBeLessThan(LEASE_MS); // stopped before the lease could lapse
    }
    for (const outcome of await Promise.all(run.cutRuns)) {
      expect(outcome).toBeInstanceOf(SchedulerError);
      expect((outcome as SchedulerError).code).toBe("STORE_UNAVAILABLE");
    }
    expect(run.cut.store.status).not.toBe("connected");

    gate!.thaw();
    await waitFor(() => run.cut.store.status === "connected", 5_000, "reconnected");
    await expect(run.cut.scheduler.run(() => "after")).resolves.toBe("after");
    await waitFor(async () => (await redisState(redis.admin, "partition-closed:")).running === 0, 3_000);
  });

  it('"local": keeps only its local share running once its lease cannot be renewed', async () => {
    const run = await partitioned("partition-local:", { onStoreError: "local", expectedInstances: 2 });
    await Promise.all(run.otherRuns);
    const firstOther = Math.min(...run.seen.starts.filter((s) => s.who === "other").map((s) => s.at));

    // maxConcurrency 4 over 2 expected instances: 2 may keep running, the 2 beyond are stopped in time
    expect(run.seen.ends).toHaveLength(2);
    for (const end of run.seen.ends) {
      expect(end).toBeLessThan(firstOther);
      expect(end - run.frozenAt).toBeLessThan(LEASE_MS);
    }
    expect(run.cut.store.status).toBe("local");
    for (const outcome of await Promise.all(run.cutRuns.slice(2))) {
      expect((outcome as SchedulerError).code).toBe("STORE_UNAVAILABLE"); // the newest two
    }
  });
});

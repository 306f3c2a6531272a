import { SchedulerError } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { type Instance, instance, sleep, useRedisServer, waitForEmpty } from "./helpers.js";

const redis = useRedisServer({ admin: true });
const MAX = 4;

/** Workers that keep submitting 30 ms tasks until `until`, counting what runs at once across instances. */
function load(gateways: readonly Instance[], until: number) {
  const seen = { inFlight: 0, peak: 0, done: 0, codes: new Map<string, number>() };
  const task = async (): Promise<void> => {
    seen.inFlight++;
    seen.peak = Math.max(seen.peak, seen.inFlight);
    await sleep(30);
    seen.inFlight--;
  };
  const workers = gateways.flatMap((gateway) =>
    Array.from({ length: 6 }, async () => {
      while (performance.now() < until) {
        try {
          await gateway.scheduler.run(task, { priority: "batch" });
          seen.done++;
        } catch (error) {
          const code = error instanceof SchedulerError ? error.code : String(error);
          seen.codes.set(code, (seen.codes.get(code) ?? 0) + 1);
          await sleep(20);
        }
      }
    }),
  );
  return { seen, finished: Promise.all(workers) };
}

describe("Redis SIGKILLed mid-decision under load, restarted empty on the same port", () => {
  it("settles every call, leaks no slot, and never runs more than the global limit", async () => {
    const prefix = "kill:";
    const gateways = [0, 1].map(() =>
      instance(
        redis.server.url,
        { prefix, leaseMs: 3_000, commandTimeoutMs: 500 },
        { maxConcurrency: MAX, priorities: { batch: { queueTimeoutMs: 20_000 } } },
      ),
    );
    const started = performance.now();
    const { seen, finished } = load(gateways, started + 5_000);
    await sleep(800);
    await redis.server.kill(); // script calls in flight fail; whatever ran in Redis is gone
    await sleep(300);
    await redis.server.restart();
    await finished;

    expect(seen.peak).toBeLessThanOrEqual(MAX);
    expect([...seen.codes.keys()].filter((code) => code !== "STORE_UNAVAILABLE")).toEqual([]);
    expect(seen.done).toBeGreaterThan(50); // work went on before the kill and after the restart
    for (const gateway of gateways) {
      await gateway.scheduler.onIdle();
      // this instance holds nothing (the global counts in metrics() are Redis's, as of its last call)
      expect(gateway.scheduler.metrics().tenants).toEqual([]);
      expect(gateway.store.status).toBe("connected");
    }
    await waitForEmpty(redis.admin, prefix, 5_000);
    await Promise.all(gateways.map((gateway) => gateway.close()));
  });
});

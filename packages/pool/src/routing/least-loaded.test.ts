import { describe, expect, it } from "vitest";
import type { ReplicaState } from "../replica-state.js";
import { batchHold } from "./batch-hold.js";
import { leastLoaded } from "./least-loaded.js";
import { roundRobin } from "./round-robin.js";

const replica = (
  id: string,
  inFlight: number,
  limit = 8,
  extra: Partial<ReplicaState> = {},
): ReplicaState => ({
  id,
  limit,
  inFlight,
  healthy: true,
  ...extra,
});

/** A random source that returns the given draws in turn. */
const draws = (...values: number[]) => {
  let index = 0;
  return () => values[index++ % values.length]!;
};

describe("leastLoaded", () => {
  it("compares in flight over limit of the two drawn replicas and takes the lower", () => {
    const replicas = [replica("a", 6), replica("b", 1), replica("c", 7)];
    // first draw a (0.0 -> index 0), second draw c (0.99 of the two others -> index 2)
    expect(leastLoaded({ random: draws(0, 0.99) }).pick(replicas, undefined)).toBe("a"); // 6/8 < 7/8
    // a against b
    expect(leastLoaded({ random: draws(0, 0) }).pick(replicas, undefined)).toBe("b");
  });

  it("keeps the first drawn on a tie and never draws the same replica twice", () => {
    const replicas = [replica("a", 2), replica("b", 2)];
    expect(leastLoaded({ random: draws(0.99, 0.99) }).pick(replicas, undefined)).toBe("b");
    expect(leastLoaded({ random: draws(0, 0) }).pick(replicas, undefined)).toBe("a");
  });

  it("routes away from a replica whose engine queues while another has no queue", () => {
    const queued = replica("a", 0, 8, { engine: { waiting: 3, running: 8, kvCacheUsage: 0.5 } });
    const busy = replica("b", 7);
    for (const value of [0, 0.5, 0.99]) {
      expect(leastLoaded({ random: draws(value) }).pick([queued, busy], undefined)).toBe("b");
    }
  });

  it("sends no batch work where the engine queues or the KV cache is over the threshold", () => {
    const hold = batchHold({ maxKvCacheUsage: 0.8 });
    const full = replica("a", 0, 8, { engine: { waiting: 0, running: 4, kvCacheUsage: 0.95 } });
    const queued = replica("b", 0, 8, { engine: { waiting: 1, running: 8, kvCacheUsage: 0.2 } });
    const calm = replica("c", 7, 8, { engine: { waiting: 0, running: 7, kvCacheUsage: 0.5 } });
    expect(hold(full)).toBe(false);
    expect(hold(queued)).toBe(false);
    expect(hold(calm)).toBe(true);
    expect(hold(replica("d", 0))).toBe(true); // no signals: never held
    expect(leastLoaded({ random: draws(0) }).pick([full, queued, calm], undefined, hold)).toBe("c");
    expect(leastLoaded().pick([full, queued], undefined, hold)).toBeNull();
    expect(batchHold({ maxWaiting: 1 })(queued)).toBe(true); // one queued is within a bound of 1
  });

  it("rejects a threshold out of range", () => {
    expect(() => batchHold({ maxKvCacheUsage: 1.5 })).toThrowError(/maxKvCacheUsage/);
    expect(() => batchHold({ kv: 1 } as never)).toThrowError(/Unknown option `kv`/);
    expect(() => batchHold({ maxWaiting: -1 })).toThrowError(/`maxWaiting` to be an integer from 0/);
  });
});

describe("roundRobin", () => {
  it("takes the replicas in turn, skipping those that are full or unhealthy", () => {
    const router = roundRobin();
    const replicas = [
      replica("a", 0),
      replica("b", 8),
      replica("c", 0),
      replica("d", 0, 8, { healthy: false }),
    ];
    const picks = Array.from({ length: 4 }, () => router.pick(replicas, "same key"));
    expect(picks).toEqual(["a", "c", "a", "c"]);
  });
});

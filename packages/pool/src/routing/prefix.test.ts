import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ReplicaState } from "../replica-state.js";
import { hashString } from "./hash.js";
import { prefixAffinity } from "./prefix.js";
import { HashRing } from "./ring.js";
import { hasRoom } from "./router.js";

const pool = (count: number, limit = 8): ReplicaState[] =>
  Array.from({ length: count }, (_, index) => ({ id: `r${index}`, limit, inFlight: 0, healthy: true }));

const keys = (count: number) => Array.from({ length: count }, (_, index) => `p:${index.toString(16)}`);

/** The bound of bounded-load consistent hashing, computed here independently of the router. */
function withinBound(replicas: readonly ReplicaState[], chosen: ReplicaState, c: number): boolean {
  const healthy = replicas.filter((r) => r.healthy);
  const inFlight = healthy.reduce((sum, r) => sum + r.inFlight, 0);
  const limit = healthy.reduce((sum, r) => sum + r.limit, 0);
  return chosen.inFlight + 1 <= Math.ceil((c * (inFlight + 1) * chosen.limit) / limit);
}

/** The replicas in the order `key`'s walk round the ring visits them (100 points each, as the router). */
function walkOrder(replicas: readonly ReplicaState[], key: string): string[] {
  const order: string[] = [];
  new HashRing(
    replicas.map((r) => r.id),
    100,
  ).visit(hashString(key), (id) => {
    order.push(id);
    return false;
  });
  return order;
}

describe("prefixAffinity", () => {
  it("sends a key to the same replica, whatever the order of the replicas or the router instance", () => {
    const replicas = pool(8);
    const shuffled = [...replicas].reverse();
    const first = prefixAffinity();
    const second = prefixAffinity();
    for (const key of keys(200)) {
      const home = first.pick(replicas, key);
      expect(first.pick(replicas, key)).toBe(home);
      expect(second.pick(shuffled, key)).toBe(home);
    }
  });

  it("spreads keys over the replicas (100 points each)", () => {
    const counts = new Map<string, number>();
    const router = prefixAffinity();
    for (const key of keys(8000)) {
      const id = router.pick(pool(8), key)!;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    expect(counts.size).toBe(8);
    for (const count of counts.values()) expect(count).toBeGreaterThan(1000 * 0.6);
    for (const count of counts.values()) expect(count).toBeLessThan(1000 * 1.4);
  });

  it("moves only the removed replica's keys when a replica leaves, and only keys to it when one joins", () => {
    const [withAll, withSeven] = [prefixAffinity(), prefixAffinity()];
    const all = pool(8);
    const without = all.filter((r) => r.id !== "r3");
    for (const key of keys(3000)) {
      const before = withAll.pick(all, key);
      const after = withSeven.pick(without, key);
      if (before !== "r3") expect(after).toBe(before);
      else expect(after).not.toBe("r3");
    }
  });

  it("keeps a key's place while its replica is unhealthy only for the others' keys", () => {
    const router = prefixAffinity();
    const all = pool(6);
    const ejected = all.map((r) => (r.id === "r2" ? { ...r, healthy: false } : r));
    for (const key of keys(1000)) {
      const before = router.pick(all, key);
      if (before !== "r2") expect(router.pick(ejected, key)).toBe(before);
    }
  });

  it("spills a key over its bound to the next replica on its walk, in the same order every time", () => {
    const replicas = pool(4);
    const key = "p:cafe";
    const order = walkOrder(replicas, key);
    expect(new Set(order).size).toBe(4);
    // The home replica holds 5 of 5 in flight: over 1.25 x (5 + 1) x 8 / 32 = 1.875 -> bound 2.
    const loaded = replicas.map((r) => (r.id === order[0] ? { ...r, inFlight: 5 } : r));
    expect(prefixAffinity().pick(loaded, key)).toBe(order[1]);
    expect(prefixAffinity().pick([...loaded].reverse(), key)).toBe(order[1]);
    // With the second over its bound too, the third.
    const both = loaded.map((r) => (r.id === order[1] ? { ...r, inFlight: 5 } : r));
    expect(prefixAffinity().pick(both, key)).toBe(order[2]);
  });

  it("respects the load bound whenever some replica with room is within it (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.boolean(), fc.nat(7)), { maxLength: 200 }),
        fc.double({ min: 1.01, max: 3, noNaN: true }),
        (limits, steps, c) => {
          const router = prefixAffinity({ loadFactor: c });
          let replicas: ReplicaState[] = limits.map((limit, index) => ({
            id: `r${index}`,
            limit,
            inFlight: 0,
            healthy: true,
          }));
          for (const [key, finish, which] of steps) {
            if (finish) {
              // one request ends somewhere
              const index = which % replicas.length;
              replicas = replicas.map((r, i) =>
                i === index ? { ...r, inFlight: Math.max(0, r.inFlight - 1) } : r,
              );
              continue;
            }
            const picked = router.pick(replicas, key);
            const open = replicas.filter(hasRoom);
            if (open.length === 0) {
              expect(picked).toBeNull();
              continue;
            }
            const chosen = replicas.find((r) => r.id === picked)!;
            expect(hasRoom(chosen)).toBe(true);
            if (open.some((r) => withinBound(replicas, r, c)))
              expect(withinBound(replicas, chosen, c)).toBe(true);
            replicas = replicas.map((r) => (r === chosen ? { ...r, inFlight: r.inFlight + 1 } : r));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("spills from a slow replica sooner: its bound weighs its limit by its relative speed", () => {
    const replicas = pool(4);
    const key = "p:cafe";
    const order = walkOrder(replicas, key);
    // 11 in flight, 2 on the key's home: full speed, 1.25 x 12 x 8 / 32 = 3.75 -> bound 4, it stays.
    const busy = replicas.map((r) => ({ ...r, inFlight: r.id === order[0] ? 2 : 3 }));
    expect(prefixAffinity().pick(busy, key)).toBe(order[0]);
    // At half speed: 1.25 x 12 x 4 / 28 = 2.14 -> bound 3, it stays at 2 ...
    const slow = busy.map((r) => (r.id === order[0] ? { ...r, speed: 0.5 } : r));
    expect(prefixAffinity().pick(slow, key)).toBe(order[0]);
    // ... and spills at 3, where a full-speed home (bound 1.25 x 13 x 8 / 32 = 4.06 -> 5) keeps it.
    const fuller = (speed: number) => busy.map((r) => (r.id === order[0] ? { ...r, inFlight: 3, speed } : r));
    expect(prefixAffinity().pick(fuller(1), key)).toBe(order[0]);
    expect(prefixAffinity().pick(fuller(0.5), key)).toBe(order[1]);
    // No estimate counts as full speed.
    const unknown = busy.map((r) => (r.id === order[0] ? { ...r, inFlight: 3, speed: undefined } : r));
    expect(prefixAffinity().pick(unknown, key)).toBe(order[0]);
  });

  it("keeps a key on its replica while that replica's engine queues but stays within its bound", () => {
    const replicas = pool(4);
    const key = "p:beef";
    const home = prefixAffinity().pick(replicas, key)!;
    const engine = { waiting: 2, running: 8, kvCacheUsage: 0.7 };
    const queued = replicas.map((r) =>
      r.id === home ? { ...r, inFlight: 1, engine } : { ...r, inFlight: 1 },
    );
    expect(prefixAffinity().pick(queued, key)).toBe(home);
  });

  it("sends requests without a key to the less loaded of two", () => {
    const replicas: ReplicaState[] = [
      { id: "a", limit: 8, inFlight: 7, healthy: true },
      { id: "b", limit: 8, inFlight: 0, healthy: true },
    ];
    expect(prefixAffinity({ random: () => 0 }).pick(replicas, undefined)).toBe("b");
  });

  it("checks its options", () => {
    expect(() => prefixAffinity({ loadFactor: 1 })).toThrowError(/`loadFactor` to be a number in \(1, 100\]/);
    expect(() => prefixAffinity({ virtualNodes: 0 })).toThrowError(/virtualNodes/);
    expect(() => prefixAffinity({ loadfactor: 2 } as never)).toThrowError(/did you mean `loadFactor`/);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ReplicaState } from "../replica-state.js";
import { batchHold } from "./batch-hold.js";
import { createRouter, ROUTINGS } from "./create-router.js";
import { engineQueued, hasRoom } from "./router.js";

const replicaArb = (index: number) =>
  fc
    .record({
      limit: fc.integer({ min: 0, max: 8 }),
      extra: fc.integer({ min: -8, max: 2 }),
      healthy: fc.boolean(),
      engine: fc.option(
        fc.record({
          waiting: fc.integer({ min: 0, max: 3 }),
          running: fc.integer({ min: 0, max: 8 }),
          kvCacheUsage: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
        }),
        { nil: undefined },
      ),
    })
    .map(
      ({ limit, extra, healthy, engine }): ReplicaState => ({
        id: `r${index}`,
        limit,
        inFlight: Math.max(0, limit + extra),
        healthy,
        engine,
      }),
    );

const poolArb = fc
  .integer({ min: 1, max: 10 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, index) => replicaArb(index))));

const seeded = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4_294_967_296;
  };
};

describe.each(ROUTINGS)("%s router", (routing) => {
  it("never picks an unhealthy or full replica, returns null only when none has room, and avoids engine queues when it chooses by load", () => {
    fc.assert(
      fc.property(
        poolArb,
        fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
        fc.boolean(),
        fc.integer(),
        (replicas, key, forBatch, seed) => {
          const router = createRouter(routing, { random: seeded(seed) });
          const accept = forBatch ? batchHold() : undefined;
          const open = replicas.filter((r) => hasRoom(r) && (accept === undefined || accept(r)));
          const picked = router.pick(replicas, key, accept);
          if (open.length === 0) {
            expect(picked).toBeNull();
            return;
          }
          const chosen = replicas.find((r) => r.id === picked);
          expect(chosen).toBeDefined();
          expect(hasRoom(chosen!)).toBe(true);
          if (accept !== undefined) expect(accept(chosen!)).toBe(true);
          // Load-based choices avoid engine queues; prefix affinity leaves that to its load bound.
          const loadBased = routing !== "prefix" || key === undefined;
          if (loadBased && open.some((r) => !engineQueued(r))) expect(engineQueued(chosen!)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("createRouter", () => {
  it("refuses an unknown routing with INVALID_OPTION", () => {
    expect(() => createRouter("random" as never)).toThrowError(
      expect.objectContaining({ code: "INVALID_OPTION" }),
    );
  });
});

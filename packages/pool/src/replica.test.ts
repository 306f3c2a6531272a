import { type Permit, VirtualClock } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { Replica } from "./replica.js";
import { batchHold } from "./routing/batch-hold.js";

const STALE_MS = 3_000;

function fullReplica() {
  const clock = new VirtualClock();
  const replica = new Replica("r0", { url: "http://r0.test", maxConcurrency: 4 }, clock, undefined, () => {});
  const slots: Permit[] = [];
  for (let i = 0; i < 4; i++) slots.push(replica.take(undefined)!);
  // the engine runs the four, its KV cache full, one request of another client queued
  replica.setEngine({ waiting: 1, running: 4, kvCacheUsage: 1 }, clock.now());
  return { replica, slots, view: () => replica.view(clock.now(), STALE_MS).engine };
}

describe("a replica's engine signals between scrapes", () => {
  it("count the requests of this instance that ended since the scrape: first the queue, then the batch and its KV cache", () => {
    const { replica, slots, view } = fullReplica();
    const forBatch = batchHold();
    expect(view()).toEqual({ waiting: 1, running: 4, kvCacheUsage: 1 });

    replica.give(slots.pop()!); // the queued request takes its sequence
    expect(view()).toEqual({ waiting: 0, running: 4, kvCacheUsage: 1 });
    expect(forBatch(replica.view(0, STALE_MS))).toBe(false);

    replica.give(slots.pop()!); // a sequence and its share of the cache are free
    expect(view()).toEqual({ waiting: 0, running: 3, kvCacheUsage: 0.75 });
    expect(forBatch(replica.view(0, STALE_MS))).toBe(true);

    // the answers the engine gave are unchanged where the pool reports them
    expect(replica.metrics(0, STALE_MS).engine).toEqual({ waiting: 1, running: 4, kvCacheUsage: 1 });
  });

  it("keep the reading when more are in flight than at the scrape, and start again from the next scrape", () => {
    const { replica, slots, view } = fullReplica();
    replica.give(slots.pop()!);
    replica.give(slots.pop()!);
    slots.push(replica.take(undefined)!); // one of the two freed sequences is taken again
    expect(view()).toEqual({ waiting: 0, running: 4, kvCacheUsage: 1 });
    slots.push(replica.take(undefined)!);
    expect(view()).toEqual({ waiting: 1, running: 4, kvCacheUsage: 1 }); // the engine's room is unknown

    replica.setEngine({ waiting: 0, running: 2, kvCacheUsage: 0.5 }, 0);
    replica.give(slots.pop()!);
    expect(view()).toEqual({ waiting: 0, running: 1, kvCacheUsage: 0.25 });
    for (const slot of slots) replica.give(slot);
    expect(view()).toEqual({ waiting: 0, running: 0, kvCacheUsage: 0 });
  });

  it("leave an engine without a KV cache reading without one", () => {
    const { replica, slots, view } = fullReplica();
    replica.setEngine({ waiting: 0, running: 4, kvCacheUsage: undefined }, 0);
    replica.give(slots.pop()!);
    expect(view()).toEqual({ waiting: 0, running: 3, kvCacheUsage: undefined });
  });
});

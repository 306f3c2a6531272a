import { describe, expect, it } from "vitest";
import { resolveOptions } from "../resolve-options.js";
import { Lane } from "./lane.js";
import type { Linked } from "./links.js";

const weights = new Map<string, number>();

let seq = 0;

function ticket(tenant: string): Linked {
  return {
    seq: ++seq,
    priority: "batch",
    tenant,
    cost: 1,
    retry: false,
    enqueuedAt: 0,
    prev: null,
    next: null,
    queuedIn: null,
  };
}

function lane(): Lane {
  return new Lane(resolveOptions({}).priorities[0]!);
}

describe("Lane tenants", () => {
  it("reuses the queue of a tenant that went idle and comes back", () => {
    const room = lane();
    const first = room.tenant("alice", weights);
    const waiting = ticket("alice");
    room.push(waiting, first);
    room.remove(waiting);
    expect(first.idle).toBe(true);
    expect(room.tenant("alice", weights)).toBe(first);
  });

  it("drops idle tenants as new ones arrive, so memory follows the active tenants", () => {
    const room = lane();
    const busy = room.tenant("busy", weights);
    room.push(ticket("busy"), busy);
    for (let i = 0; i < 10_000; i++) {
      const queue = room.tenant(`tenant-${i}`, weights);
      const waiting = ticket(`tenant-${i}`);
      room.push(waiting, queue);
      room.remove(waiting);
      expect(room.tenants.size).toBeLessThanOrEqual(65);
    }
    expect(room.tenants.get("busy")).toBe(busy);
    expect(room.queued).toBe(1);
  });

  it("shrinks to the active tenants once a spike of 100,000 tenants has gone idle", () => {
    const room = lane();
    const waiting = [];
    for (let i = 0; i < 100_000; i++) {
      const item = ticket(`spike-${i}`);
      room.push(item, room.tenant(item.tenant, weights));
      waiting.push(item);
    }
    expect(room.tenants.size).toBe(100_000);
    for (const item of waiting.slice(0, 99_990)) room.remove(item);
    // Ten tenants still wait: the map follows them, not the spike (and no new tenant had to come).
    expect(room.tenants.size).toBeLessThanOrEqual(10 + 64 + 10);
    expect(room.queued).toBe(10);
  });
});

describe("Lane age order", () => {
  it("keeps none while the priority does not age, and builds it by arrival when aging starts", () => {
    const settings = resolveOptions({ priorities: { batch: { weight: 1 } } }).priorities[0]!;
    const room = new Lane(settings);
    const late = { ...ticket("b"), enqueuedAt: 20 };
    const early = { ...ticket("a"), enqueuedAt: 10 };
    room.push(late, room.tenant("b", weights));
    room.push(early, room.tenant("a", weights));
    expect(room.oldest).toBeNull();
    room.configure({ ...settings, maxWaitMs: 1_000 });
    expect(room.oldest).toBe(early);
    room.remove(early);
    expect(room.oldest).toBe(late);
    room.configure(settings);
    expect(room.oldest).toBeNull();
  });
});

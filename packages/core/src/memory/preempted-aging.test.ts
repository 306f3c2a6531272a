import { describe, expect, it } from "vitest";
import { resolveOptions } from "../resolve-options.js";
import { Lane } from "./lane.js";
import type { Linked } from "./links.js";
import { type Choice, pick } from "./picker.js";

const weights = new Map<string, number>();
const fitsAll = { fits: (): boolean => true };

function ticket(seq: number, tenant: string, enqueuedAt: number): Linked {
  return {
    seq,
    priority: "batch",
    tenant,
    cost: 1,
    retry: false,
    enqueuedAt,
    prev: null,
    next: null,
    queuedIn: null,
  };
}

/** The default `batch` priority: aging after 60 s. */
function batchLane(): Lane {
  return new Lane(resolveOptions({}).priorities[1]!);
}

/** The first time (ms, from `from`) at which the picker takes an aged start in `lane`, and its ticket. */
function firstAged(lane: Lane, from: number): { at: number; ticket: Linked } {
  const out: Choice = { lane: null, ticket: null, aged: false };
  for (let now = from; now < from + 120_000; now += 100) {
    if (pick([lane], now, fitsAll, out) && out.aged) return { at: now, ticket: out.ticket! };
  }
  throw new Error("no aged start");
}

describe("a preempted ticket in the aging order", () => {
  it("goes to the oldest end even behind older waiters; aging fires at the same moment as if sorted in", () => {
    // Tenant a's ticket arrived at 0 and waits; tenant b's arrived at 100 and started at 200 through a
    // tenant turn (the lane's last start), then was preempted and waits again.
    const kept = batchLane();
    const older = ticket(1, "a", 0);
    const victim = ticket(2, "b", 100);
    kept.push(older, kept.tenant("a", weights));
    kept.lastStartAt = 200;
    kept.pushPreempted(victim, kept.tenant("b", weights));
    expect(kept.oldest).toBe(victim);

    const sorted = batchLane();
    const older2 = ticket(3, "a", 0);
    const victim2 = ticket(4, "b", 100);
    sorted.push(older2, sorted.tenant("a", weights));
    sorted.push(victim2, sorted.tenant("b", weights));
    sorted.lastStartAt = 200;

    // Aging counts from the later of the oldest arrival and the last start, which is after the
    // victim's arrival: the same moment either way.
    const a = firstAged(kept, 1_000);
    const b = firstAged(sorted, 1_000);
    expect(a.at).toBe(60_200);
    expect(b.at).toBe(a.at);
    // Only the ticket differs: the victim takes that aged start, one place ahead of the older one.
    expect(a.ticket).toBe(victim);
    expect(b.ticket).toBe(older2);
  });
});

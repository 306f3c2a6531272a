import { describe, expect, it } from "vitest";
import { AgeOrder } from "./age-order.js";
import type { Linked } from "./links.js";

const QUEUE = {};

function ticket(seq: number): Linked {
  return {
    seq,
    priority: "batch",
    tenant: "t",
    cost: 1,
    retry: false,
    enqueuedAt: seq,
    prev: null,
    next: null,
    queuedIn: QUEUE,
  };
}

/** What `Lane` does when a ticket starts or leaves: it no longer waits. */
function leave(item: Linked): void {
  item.queuedIn = null;
}

describe("AgeOrder", () => {
  it("answers the oldest waiting ticket, skipping those that left, and null once none waits", () => {
    const ages = new AgeOrder();
    const [a, b, c] = [ticket(1), ticket(2), ticket(3)];
    ages.push(a, 0);
    ages.push(b, 1);
    ages.push(c, 2);
    expect(ages.oldest()).toBe(a);
    leave(b);
    expect(ages.oldest()).toBe(a);
    leave(a);
    expect(ages.oldest()).toBe(c);
    leave(c);
    expect(ages.oldest()).toBeNull();
  });

  it("puts preempted tickets first, the last preempted first, and keeps a second entry harmless", () => {
    const ages = new AgeOrder();
    const [a, b, c] = [ticket(1), ticket(2), ticket(3)];
    ages.push(a, 0);
    ages.push(b, 1);
    ages.push(c, 2);
    // b started out of age order, was preempted and waits again: it has an entry in both places.
    ages.pushOldest(b);
    ages.pushOldest(c);
    expect(ages.oldest()).toBe(c);
    leave(c);
    expect(ages.oldest()).toBe(b);
    leave(b);
    expect(ages.oldest()).toBe(a);
    leave(a);
    expect(ages.oldest()).toBeNull();
  });

  it("drops the entries of tickets that left while an older one still waits", () => {
    const ages = new AgeOrder();
    const first = ticket(0);
    ages.push(first, 0);
    const gone = ticket(1);
    ages.push(gone, 1);
    leave(gone);
    for (let i = 2; i < 1_000; i++) {
      const item = ticket(i);
      ages.push(item, 1);
      leave(item);
    }
    // Had `gone`'s entry been kept, it would count as waiting again here and come right after `first`.
    gone.queuedIn = QUEUE;
    leave(first);
    expect(ages.oldest()).toBeNull();
  });
});

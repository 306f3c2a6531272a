import { describe, expect, it } from "vitest";
import { Slots } from "./slots.js";

const never = new AbortController().signal;

describe("Slots", () => {
  it("hands out up to capacity at once, then queues", async () => {
    const slots = new Slots(2);
    await slots.acquire(never);
    await slots.acquire(never);
    expect(slots.active).toBe(2);
    expect(slots.hasFree).toBe(false);
    let third = false;
    void slots.acquire(never).then(() => {
      third = true;
    });
    await Promise.resolve();
    expect(third).toBe(false);
    expect(slots.waiting).toBe(1);
  });

  it("serves waiters in FIFO order and passes the sequence on directly", async () => {
    const slots = new Slots(1);
    const release = await slots.acquire(never);
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) =>
      slots.acquire(never).then((next) => {
        order.push(n);
        next();
      }),
    );
    expect(slots.waiting).toBe(3);
    release();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
    expect(slots.active).toBe(0);
    expect(slots.waiting).toBe(0);
  });

  it("removes an aborted waiter at once and rejects with the signal's reason", async () => {
    const slots = new Slots(1);
    const release = await slots.acquire(never);
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    const reason = new Error("gone");
    controller.abort(reason);
    expect(slots.waiting).toBe(0);
    await expect(waiting).rejects.toBe(reason);
    release();
    expect(slots.active).toBe(0);
  });

  it("rejects an already aborted signal without taking a sequence", async () => {
    const slots = new Slots(1);
    await expect(slots.acquire(AbortSignal.abort(new Error("early")))).rejects.toThrow("early");
    expect(slots.active).toBe(0);
  });

  it("ignores a second release", async () => {
    const slots = new Slots(2);
    const release = await slots.acquire(never);
    await slots.acquire(never);
    release();
    release();
    expect(slots.active).toBe(1);
  });
});

import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { inWorkerd, Lifeline } from "./lifeline.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("Lifeline (the workerd path of the middleware)", () => {
  it("is off outside workerd", () => {
    expect(inWorkerd).toBe(false);
  });

  it("keeps a timer of its own while the request waits, and stops it once the slot is granted", async () => {
    vi.useFakeTimers();
    const scheduler = createScheduler({ maxConcurrency: 1, clock: new VirtualClock() });
    const first = scheduler.tryAcquire({ priority: "interactive" })!;
    const line = new Lifeline(new AbortController().signal);
    expect(vi.getTimerCount()).toBe(1);
    const waiting = scheduler.acquire({ priority: "interactive", signal: line.signal });
    first.release();
    line.hold(await waiting);
    expect(vi.getTimerCount()).toBe(0);
    expect(scheduler.metrics().running).toBe(1);
  });

  it("takes a queued request out of the queue when its client leaves", async () => {
    vi.useFakeTimers();
    const scheduler = createScheduler({ maxConcurrency: 1, clock: new VirtualClock() });
    scheduler.tryAcquire({ priority: "interactive" });
    const client = new AbortController();
    const line = new Lifeline(client.signal);
    const waiting = scheduler.acquire({ priority: "interactive", signal: line.signal });
    expect(scheduler.metrics().queued).toBe(1);
    client.abort(new Error("client left"));
    await expect(waiting).rejects.toMatchObject({ code: "ABORTED" });
    expect(scheduler.metrics().queued).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("releases a held slot at once when its client leaves, and stops its timer when refused", () => {
    vi.useFakeTimers();
    const scheduler = createScheduler({ maxConcurrency: 1, clock: new VirtualClock() });
    const client = new AbortController();
    const line = new Lifeline(client.signal);
    line.hold(scheduler.tryAcquire({ priority: "interactive" })!);
    client.abort(new Error("client left"));
    expect(scheduler.metrics()).toMatchObject({ running: 0, failed: 1 });
    const refused = new Lifeline(new AbortController().signal);
    expect(vi.getTimerCount()).toBe(1);
    refused.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});

import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { inWorkerd, Lifelines } from "./lifeline.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("Lifeline (the workerd path of the middleware)", () => {
  it("is off outside workerd", () => {
    expect(inWorkerd).toBe(false);
  });

  it("keeps a timer of its own while the request waits and holds its slot, and stops it once released", async () => {
    vi.useFakeTimers();
    const scheduler = createScheduler({ maxConcurrency: 1, clock: new VirtualClock() });
    const first = scheduler.tryAcquire({ priority: "interactive" })!;
    const line = new Lifelines(scheduler).open(new AbortController().signal);
    expect(vi.getTimerCount()).toBe(1);
    const waiting = scheduler.acquire({ priority: "interactive", signal: line.signal });
    first.release();
    const permit = await waiting;
    line.hold(permit);
    vi.advanceTimersByTime(1_000);
    expect(vi.getTimerCount()).toBe(1);
    expect(scheduler.metrics().running).toBe(1);
    permit.release();
    vi.advanceTimersByTime(250);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("takes a queued request out of the queue when its client leaves", async () => {
    vi.useFakeTimers();
    const scheduler = createScheduler({ maxConcurrency: 1, clock: new VirtualClock() });
    scheduler.tryAcquire({ priority: "interactive" });
    const client = new AbortController();
    const line = new Lifelines(scheduler).open(client.signal);
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
    const line = new Lifelines(scheduler).open(client.signal);
    line.hold(scheduler.tryAcquire({ priority: "interactive" })!);
    client.abort(new Error("client left"));
    expect(scheduler.metrics()).toMatchObject({ running: 0, failed: 1 });
    const refused = new Lifelines(scheduler).open(new AbortController().signal);
    expect(vi.getTimerCount()).toBe(1);
    refused.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("Lifeline beats", () => {
  it("re-arm the scheduler's deadline timer, so a queue timeout fires though the timer that was armed is lost", async () => {
    vi.useFakeTimers();
    const clock = new VirtualClock();
    // A clock that loses its timers, as workerd does when the request that set one ends.
    const lossy = { now: () => clock.now(), setTimer: () => ({}), clearTimer: () => {} };
    const scheduler = createScheduler({
      maxConcurrency: 1,
      clock: lossy,
      priorities: { only: { queueTimeoutMs: 100 } },
    });
    scheduler.tryAcquire();
    const waiting = scheduler.acquire();
    const outcome = waiting.then(
      () => "granted",
      (error: { code: string }) => error.code,
    );
    clock.advance(200);
    await Promise.resolve();
    expect(scheduler.metrics().queued).toBe(1);
    new Lifelines(scheduler).open(new AbortController().signal);
    vi.advanceTimersByTime(250);
    expect(await outcome).toBe("QUEUE_TIMEOUT");
    expect(scheduler.metrics().queued).toBe(0);
  });
});

describe("Lifelines reap", () => {
  it("releases the slot of a holder that stopped beating, from the next request's beat, and no sooner", async () => {
    vi.useFakeTimers();
    const scheduler = createScheduler({ maxConcurrency: 1, clock: new VirtualClock() });
    const lifelines = new Lifelines(scheduler);
    const cancelled = lifelines.open(new AbortController().signal);
    cancelled.hold(scheduler.tryAcquire({ priority: "interactive" })!);
    vi.clearAllTimers(); // workerd cancelled that request with its client: its timer went with it
    const next = lifelines.open(new AbortController().signal);
    const waiting = scheduler.acquire({ priority: "interactive", signal: next.signal });
    vi.advanceTimersByTime(2_750); // 2.75 s since its last beat: still counted as alive
    expect(scheduler.metrics()).toMatchObject({ running: 1, queued: 1 });
    vi.advanceTimersByTime(250); // 3 s: stale, so the next beat releases its slot
    const permit = await waiting;
    next.hold(permit);
    expect(scheduler.metrics()).toMatchObject({ running: 1, queued: 0 });
    permit.release();
    vi.advanceTimersByTime(250);
    expect(vi.getTimerCount()).toBe(0);
  });
});

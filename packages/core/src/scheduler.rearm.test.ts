import { describe, expect, it } from "vitest";
import { flush } from "../test/harness.js";
import { type Clock, VirtualClock } from "./clock.js";
import { createScheduler } from "./scheduler.js";

/** A clock that loses the timers set while `losing` is on, as workerd does when the request that set one ends. */
function lossyClock(): { clock: Clock; virtual: VirtualClock; losing: { on: boolean } } {
  const virtual = new VirtualClock();
  const losing = { on: false };
  const clock: Clock = {
    now: () => virtual.now(),
    setTimer(callback, ms) {
      const lost = losing.on;
      return virtual.setTimer(() => {
        if (!lost) callback();
      }, ms);
    },
    clearTimer: (handle) => virtual.clearTimer(handle),
  };
  return { clock, virtual, losing };
}

describe("scheduler.rearm()", () => {
  it("fires a due queue timeout whose timer was lost, and re-arms from the caller for the next deadline", async () => {
    const { clock, virtual, losing } = lossyClock();
    const scheduler = createScheduler({
      maxConcurrency: 1,
      clock,
      priorities: { only: { queueTimeoutMs: 100 } },
    });
    scheduler.tryAcquire();
    losing.on = true;
    const first = scheduler.acquire().catch((error: { code: string }) => error.code);
    virtual.advance(50);
    const second = scheduler.acquire().catch((error: { code: string }) => error.code);
    virtual.advance(90); // t = 140: the first was due at 100, the second is due at 150
    await flush();
    expect(scheduler.metrics().queued).toBe(2); // the timer for the first deadline was lost
    losing.on = false;
    scheduler.rearm();
    expect(await first).toBe("QUEUE_TIMEOUT");
    expect(scheduler.metrics().queued).toBe(1);
    virtual.advance(10); // the timer rearm() armed fires the second at 150
    expect(await second).toBe("QUEUE_TIMEOUT");
    expect(scheduler.metrics().queued).toBe(0);
  });

  it("changes nothing when nothing is due", async () => {
    const virtual = new VirtualClock();
    const scheduler = createScheduler({ maxConcurrency: 1, clock: virtual });
    const permit = scheduler.tryAcquire()!;
    const waiting = scheduler.acquire({ priority: "interactive" });
    scheduler.rearm();
    await flush();
    expect(scheduler.metrics().queued).toBe(1);
    expect(virtual.pendingTimers).toBe(1);
    permit.release();
    await expect(waiting).resolves.toMatchObject({ priority: "interactive" });
  });
});

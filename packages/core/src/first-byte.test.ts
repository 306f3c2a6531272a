import { describe, expect, it } from "vitest";
import { VirtualClock } from "./clock.js";
import type { SchedulerEvents } from "./events.js";
import { createScheduler } from "./scheduler.js";

function setUp() {
  const clock = new VirtualClock();
  const scheduler = createScheduler({ maxConcurrency: 1, clock });
  const seen: Array<SchedulerEvents["firstByte"]> = [];
  return { clock, scheduler, seen, listen: () => scheduler.on("firstByte", (event) => seen.push(event)) };
}

describe("permit.firstByte()", () => {
  it("emits firstByte once with the wait and the time to first byte (wait plus upstream)", async () => {
    const { clock, scheduler, seen, listen } = setUp();
    listen();
    const first = scheduler.tryAcquire({ id: "a", tenant: "t1" })!;
    const queued = scheduler.acquire({ id: "b", priority: "batch" });
    clock.advance(40);
    first.release();
    const second = await queued;
    clock.advance(25);
    expect(second.wantsFirstByte).toBe(true);
    second.firstByte();
    second.firstByte();
    expect(second.wantsFirstByte).toBe(false);
    expect(seen).toEqual([
      { id: "b", priority: "batch", tenant: "default", cost: 1, waitMs: 40, ttfbMs: 65 },
    ]);
    second.release();
  });

  it("costs nothing and reports nothing when nobody listens, or once the permit is released", () => {
    const { scheduler, seen, listen } = setUp();
    const unheard = scheduler.tryAcquire()!;
    expect(unheard.wantsFirstByte).toBe(false);
    unheard.release();
    const stop = listen();
    const released = scheduler.tryAcquire()!;
    released.release();
    released.firstByte();
    expect(seen).toEqual([]);
    stop();
  });

  it("keeps the scheduler working when a firstByte listener throws", () => {
    const { scheduler } = setUp();
    const errors: unknown[] = [];
    scheduler.on("error", ({ error }) => errors.push(error));
    scheduler.on("firstByte", () => {
      throw new Error("listener broke");
    });
    const permit = scheduler.tryAcquire()!;
    permit.firstByte();
    permit.release();
    expect(errors).toHaveLength(1);
    expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 1 });
  });
});

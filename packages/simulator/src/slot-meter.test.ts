import { describe, expect, it } from "vitest";
import { SlotMeter } from "./slot-meter.js";

describe("SlotMeter", () => {
  it("integrates busy, waiting and reserved-idle slot-ms exactly (hand-computed case)", () => {
    // Two slots, one reserved for interactive. Batch A runs 0-400; batch B waits 0-400, runs 400-600;
    // interactive C runs 100-300 in its reserved slot.
    const meter = new SlotMeter({ capacity: 2, reserved: { interactive: 1 } });
    meter.queued("batch", 0);
    meter.dequeued("batch", 0, true); // A
    meter.queued("batch", 0); // B waits
    meter.queued("interactive", 100);
    meter.dequeued("interactive", 100, true); // C
    meter.released("interactive", 300);
    meter.released("batch", 400); // A ends...
    meter.dequeued("batch", 400, true); // ...and B takes its slot in the same moment
    meter.released("batch", 600);
    expect(meter.totals(600)).toEqual({
      busyMs: { batch: 400 + 200, interactive: 200 },
      waitingMs: 400, // B waited from 0 to 400
      busyWhileWaitingMs: 100 * 1 + 200 * 2 + 100 * 1, // 0-100: A; 100-300: A and C; 300-400: A
      // While B waited, the reserved slot sat idle 0-100 and 300-400, when no interactive ran.
      idleReservedMs: 100 + 100,
      availableMs: 2 * 600,
      availableWhileWaitingMs: 2 * 400,
    });
  });

  it("counts no idle reserve while the reserving priority itself waits, nor beyond the idle slots", () => {
    const meter = new SlotMeter({ capacity: 2, reserved: { interactive: 3 } });
    meter.queued("batch", 0);
    meter.queued("interactive", 0);
    // Both wait 0-50: the reserving priority waits, so its idle slots are not "kept for it".
    meter.dequeued("interactive", 50, true);
    // 50-150: batch waits, interactive runs 1 of its 3 reserved: held 2, but only 1 slot is idle.
    meter.dequeued("batch", 150, false);
    expect(meter.totals(200)).toEqual({
      busyMs: { interactive: 150 },
      waitingMs: 150,
      busyWhileWaitingMs: 100,
      idleReservedMs: 100,
      availableMs: 2 * 200,
      availableWhileWaitingMs: 2 * 150,
    });
  });

  it("measures against the limit in force at each moment when it moves", () => {
    // The limit starts at 2 and rises to 6 at 100; 6 attempts run from 100 to 200 while one waits.
    const meter = new SlotMeter({ capacity: 2 });
    for (let i = 0; i < 7; i++) meter.queued("batch", 0);
    for (let i = 0; i < 2; i++) meter.dequeued("batch", 0, true);
    meter.setCapacity(6, 100);
    for (let i = 0; i < 4; i++) meter.dequeued("batch", 100, true);
    const totals = meter.totals(200);
    expect(totals.availableWhileWaitingMs).toBe(2 * 100 + 6 * 100);
    expect(totals.busyWhileWaitingMs).toBe(2 * 100 + 6 * 100); // never an idle slot: 100%, not 200%
    expect(meter.availableUntil(200)).toBe(800);
  });

  it("counts nothing for a slot handed over in the same moment, and nothing after the last event", () => {
    const meter = new SlotMeter({ capacity: 1 });
    meter.queued("batch", 0);
    meter.dequeued("batch", 0, true);
    meter.queued("batch", 0);
    meter.released("batch", 10);
    meter.dequeued("batch", 10, true);
    meter.released("batch", 30);
    const totals = meter.totals(30);
    expect(totals.busyMs).toEqual({ batch: 30 });
    expect(totals.busyWhileWaitingMs).toBe(totals.waitingMs); // the one slot never idled while B waited
    expect(meter.totals(1_000).busyMs).toEqual({ batch: 30 }); // idle time after the run adds nothing
    expect(meter.busyUntil(5)).toEqual({ batch: 30 }); // time never runs backwards
  });
});

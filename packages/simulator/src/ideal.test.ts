import { describe, expect, it } from "vitest";
import { explainMakespan, makespanVsIdeal } from "./ideal.js";
import type { RunResult } from "./stats.js";

/** Only the fields the ideal reads. */
function run(makespanMs: number, chatBusyInBatchMs: number, capacity = 8): RunResult {
  return {
    batch: { makespanMs },
    slots: { capacity, chatBusyInBatchMs },
  } as unknown as RunResult;
}

describe("makespanVsIdeal", () => {
  it("adds the extra chat work, spread over the capacity, to FIFO's makespan (hand-computed)", () => {
    // FIFO: 100 s, 40 slot-s of chat within its window; the run: 200 slot-s of chat, 8 slots.
    // Ideal: 100 s + (200 - 40) / 8 = 120 s; the run took 132 s, 1.1x the ideal, 12 s lost.
    const breakdown = makespanVsIdeal(run(100_000, 40_000), run(132_000, 200_000));
    expect(breakdown.idealMs).toBeCloseTo(120_000, 6);
    expect(breakdown.chatWorkMs).toBeCloseTo(20_000, 6);
    expect(breakdown.ratio).toBeCloseTo(1.1, 9);
    expect(breakdown.lostMs).toBeCloseTo(12_000, 6);
    expect(breakdown.fifoMs).toBe(100_000);
    expect(breakdown.actualMs).toBe(132_000);
  });

  it("is exactly 1 for FIFO against itself, and for two empty runs", () => {
    const fifo = run(100_000, 40_000);
    expect(makespanVsIdeal(fifo, fifo)).toMatchObject({ ratio: 1, idealMs: 100_000, lostMs: 0 });
    expect(makespanVsIdeal(run(0, 0), run(0, 0)).ratio).toBe(1);
  });

  it("lowers the ideal when the run served less chat than FIFO, never below 0", () => {
    expect(makespanVsIdeal(run(100_000, 80_000), run(95_000, 0)).idealMs).toBe(90_000);
    expect(makespanVsIdeal(run(1_000, 80_000), run(500, 0)).idealMs).toBe(0);
    expect(makespanVsIdeal(run(1_000, 80_000), run(500, 0)).ratio).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("explainMakespan", () => {
  it("splits the makespan into FIFO's, chat's own work and idle slots, with the slot use", () => {
    const fifo = { ...run(100_000, 40_000), label: "FIFO" } as RunResult;
    const scheduled = {
      label: "llm-scheduler",
      batch: { makespanMs: 132_000 },
      // 8 slots, 100 s with something waiting: 800 slot-s available, 720 busy, 60 of the 80 idle reserved.
      slots: {
        capacity: 8,
        chatBusyInBatchMs: 200_000,
        waitingMs: 100_000,
        utilizationWhileWaiting: 0.9,
        idleWhileWaitingMs: 80_000,
        idleReservedMs: 60_000,
      },
    } as unknown as RunResult;
    expect(explainMakespan(fifo, scheduled)).toBe(
      "llm-scheduler: batch makespan 132.0 s = FIFO's 100.0 s + 20.0 s of chat's own work + 12.0 s of idle " +
        "slots and caps (1.10x the work-conserving ideal); slots busy 90.0% while anything waited (idle: 7.5% reserved, 2.5% other)",
    );
  });
});

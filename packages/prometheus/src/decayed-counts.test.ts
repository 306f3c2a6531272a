import { describe, expect, it } from "vitest";
import { DecayedCounts } from "./decayed-counts.js";

describe("DecayedCounts", () => {
  it("halves a count every half-life and forgets what decayed to nothing", () => {
    const counts = new DecayedCounts(1_000, 8);
    for (let i = 0; i < 4; i++) counts.note("a", 0);
    counts.note("b", 1_000);
    const read = counts.read(2_000);
    expect(read.get("a")).toBeCloseTo(1, 9);
    expect(read.get("b")).toBeCloseTo(0.5, 9);
    expect(counts.read(20_000).size).toBe(0);
    expect(counts.size).toBe(0);
  });

  it("stays exact across many half-lives (the weights are rescaled)", () => {
    const counts = new DecayedCounts(1_000, 8);
    for (let t = 0; t <= 200_000; t += 500) counts.note("steady", t);
    // two events per half-life: the decayed sum tends to 1 / (1 - 2^-0.5)
    expect(counts.read(200_000).get("steady")).toBeCloseTo(1 / (1 - 2 ** -0.5), 6);
  });

  it("holds at most twice its capacity, and a flood of one-shot keys never drops a busier one", () => {
    const counts = new DecayedCounts(60_000, 4);
    for (let i = 0; i < 3; i++) counts.note("busy", 0);
    for (let i = 0; i < 10_000; i++) {
      counts.note(`once-${i}`, i);
      expect(counts.size).toBeLessThanOrEqual(8);
    }
    expect(counts.read(10_000).get("busy")).toBeGreaterThan(2);
  });
});

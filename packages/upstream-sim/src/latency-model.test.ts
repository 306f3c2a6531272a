import { describe, expect, it } from "vitest";
import { createLatencyModel } from "./latency-model.js";

describe("createLatencyModel", () => {
  const model = createLatencyModel({
    parallel: 4,
    ttftMs: 40,
    prefillMsPerToken: 0.5,
    tokenMs: 10,
    slowdown: 1,
  });

  it("grows the time to first token with the prompt", () => {
    expect(model.ttftMs(0, 1)).toBe(40);
    expect(model.ttftMs(100, 1)).toBe(90);
    expect(model.ttftMs(1000, 1)).toBe(540);
  });

  it("slows every step down as the batch fills, up to 1 + slowdown at a full batch", () => {
    expect(model.load(1)).toBe(1);
    expect(model.load(2)).toBeCloseTo(4 / 3);
    expect(model.load(4)).toBe(2);
    expect(model.tokenMs(1)).toBe(10);
    expect(model.tokenMs(4)).toBe(20);
    expect(model.ttftMs(100, 4)).toBe(180);
  });

  it("clamps the number of busy sequences to [1, parallel]", () => {
    expect(model.tokenMs(0)).toBe(10);
    expect(model.tokenMs(-3)).toBe(10);
    expect(model.tokenMs(100)).toBe(20);
    expect(model.tokenMs(Number.NaN)).toBe(10);
  });

  it("adds up a whole request: the first token at ttft, then one per tokenMs", () => {
    expect(model.requestMs(100, 1, 1)).toBe(90);
    expect(model.requestMs(100, 10, 1)).toBe(180);
    expect(model.requestMs(100, 10, 4)).toBe(360);
  });

  it("has no slowdown with a single sequence or slowdown 0", () => {
    expect(createLatencyModel({ parallel: 1, tokenMs: 7, slowdown: 3 }).tokenMs(5)).toBe(7);
    expect(createLatencyModel({ parallel: 8, tokenMs: 7, slowdown: 0 }).tokenMs(8)).toBe(7);
  });

  it("uses the documented defaults and validates its options", () => {
    expect(createLatencyModel().options).toEqual({
      parallel: 4,
      ttftMs: 50,
      prefillMsPerToken: 0.2,
      tokenMs: 20,
      slowdown: 1,
    });
    expect(() => createLatencyModel({ tokenMs: -1 })).toThrow(
      "Expected `tokenMs` to be a number from 0 to 604800000, got `-1` (number)",
    );
  });
});

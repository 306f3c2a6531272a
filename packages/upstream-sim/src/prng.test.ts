import { describe, expect, it } from "vitest";
import { createRandom, mixSeed } from "./prng.js";
import { createFiller, estimateTokens } from "./tokens.js";

describe("createRandom", () => {
  it("gives the same sequence for the same seed and another for another seed", () => {
    const draw = (seed: number) => Array.from({ length: 5 }, createRandom(seed));
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it("stays in [0, 1) and spreads evenly", () => {
    const random = createRandom(7);
    const values = Array.from({ length: 10_000 }, random);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
  });
});

describe("mixSeed", () => {
  it("is deterministic and tells its inputs apart", () => {
    expect(mixSeed(42, 1)).toBe(mixSeed(42, 1));
    expect(mixSeed(42, 1)).not.toBe(mixSeed(42, 2));
    expect(mixSeed(0, 1, 5)).not.toBe(mixSeed(1, 0, 5));
  });
});

describe("tokens", () => {
  it("estimates one token per four characters, rounded up", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abc")).toBe(1);
    expect(estimateTokens("Hello, world")).toBe(3);
  });

  it("makes reproducible filler words, spaced after the first", () => {
    const words = (seed: number) => Array.from({ length: 4 }, createFiller(createRandom(seed)));
    const first = words(3);
    expect(first).toEqual(words(3));
    expect(first[0]).toMatch(/^[a-z]+$/);
    for (const token of first.slice(1)) expect(token).toMatch(/^ [a-z]+$/);
  });
});

import { describe, expect, it } from "vitest";
import { PrefixCache } from "./prefix-cache.js";

const system = "s".repeat(64 * 10); // 10 blocks of 16 tokens (64 characters)

describe("PrefixCache", () => {
  it("reuses the leading blocks of a prompt seen before, only after the same prefix", () => {
    const cache = new PrefixCache(100, 16);
    expect(cache.admit(`${system}question one`, 164)).toBe(0);
    expect(cache.admit(`${system}question two`, 164)).toBe(160);
    expect(cache.admit(`x${system}`, 161)).toBe(0); // same blocks later in the text: a different prefix
    expect(cache.counters).toEqual({ queries: 489, hits: 160 });
  });

  it("evicts the least recently used blocks beyond its capacity", () => {
    const cache = new PrefixCache(20, 16);
    const a = "a".repeat(64 * 10);
    const b = "b".repeat(64 * 10);
    const c = "c".repeat(64 * 10);
    cache.admit(a, 160);
    cache.admit(b, 160);
    expect(cache.admit(a, 160)).toBe(160); // a is now the most recent
    cache.admit(c, 160); // evicts b
    expect(cache.size).toBe(20);
    expect(cache.admit(a, 160)).toBe(160);
    expect(cache.admit(b, 160)).toBe(0);
  });

  it("caches nothing with no capacity, and never counts more than the prompt", () => {
    expect(new PrefixCache(0, 16).admit(system, 160)).toBe(0);
    const cache = new PrefixCache(100, 16);
    cache.admit(system, 160);
    expect(cache.admit(system, 100)).toBe(100);
  });
});

import { describe, expect, it } from "vitest";
import { PrefixCache } from "./prefix-cache.js";

describe("PrefixCache", () => {
  it("hits whole cached blocks of a prefix seen before, and counts what it was asked", () => {
    const cache = new PrefixCache(1_000, 16);
    expect(cache.use("a", 100)).toBe(0);
    expect(cache.use("a", 100)).toBe(96); // 6 whole blocks of 16
    expect(cache.askedTokens).toBe(200);
    expect(cache.hitTokens).toBe(96);
  });

  it("evicts the least recently used prefix first", () => {
    const cache = new PrefixCache(64, 16); // 4 blocks
    cache.use("a", 32);
    cache.use("b", 32);
    cache.use("a", 32); // a is now the most recent
    cache.use("c", 32); // evicts b
    expect(cache.use("b", 32)).toBe(0); // evicts a (c was used after it? no: a, c -> a is older)
    expect(cache.use("c", 32)).toBe(32);
    expect(cache.use("a", 32)).toBe(0);
    expect(cache.usage).toBe(1);
  });

  it("does not cache a prefix larger than the whole cache", () => {
    const cache = new PrefixCache(64, 16);
    cache.use("small", 32);
    expect(cache.use("huge", 1_000)).toBe(0);
    expect(cache.use("huge", 1_000)).toBe(0);
    expect(cache.use("small", 32)).toBe(32);
  });
});

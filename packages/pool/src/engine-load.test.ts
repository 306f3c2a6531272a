import { describe, expect, it } from "vitest";
import { engineLoad, resolveEngineLoad } from "./engine-load.js";
import { createPool } from "./pool.js";

const defaults = resolveEngineLoad("signals.limit", undefined)!;

describe("engineLoad", () => {
  it("is what the engine holds over what it runs, or its KV usage over the threshold, the higher", () => {
    expect(defaults).toEqual({ maxWaiting: 0, maxKvCacheUsage: 0.95 });
    expect(engineLoad({ waiting: 8, running: 16, kvCacheUsage: 0.5 }, defaults)).toBe(1.5);
    expect(engineLoad({ waiting: 0, running: 16, kvCacheUsage: 0.76 }, defaults)).toBe(1); // room
    expect(engineLoad({ waiting: 0, running: 4, kvCacheUsage: undefined }, defaults)).toBe(1);
    expect(engineLoad({ waiting: 0, running: 16, kvCacheUsage: 0.9975 }, defaults)).toBeCloseTo(1.05);
    expect(engineLoad({ waiting: 2, running: 16, kvCacheUsage: 0.9975 }, defaults)).toBeCloseTo(1.125);
    // A tolerated queue: over only past it.
    const tolerant = { maxWaiting: 4, maxKvCacheUsage: 1 };
    expect(engineLoad({ waiting: 4, running: 16, kvCacheUsage: 1 }, tolerant)).toBe(1);
    expect(engineLoad({ waiting: 10, running: 16, kvCacheUsage: 1 }, tolerant)).toBe(1.3);
    // Queued with nothing running (a full KV cache): the whole queue counts, within bounds.
    expect(engineLoad({ waiting: 3, running: 0, kvCacheUsage: undefined }, defaults)).toBe(3);
    expect(engineLoad({ waiting: 5_000, running: 0, kvCacheUsage: undefined }, defaults)).toBe(1_000);
  });

  it("refuses unknown keys and values out of range in `signals.limit`; `false` turns the feed off", () => {
    expect(resolveEngineLoad("signals.limit", false)).toBeUndefined();
    const pool = (limit: unknown) =>
      createPool({
        replicas: [{ url: "http://127.0.0.1:1", maxConcurrency: 2 }],
        health: false,
        signals: { intervalMs: 0, limit: limit as never },
      });
    expect(() => pool({ maxWaitng: 1 })).toThrow(
      "Unknown option `signals.limit.maxWaitng`; did you mean `maxWaiting`?",
    );
    expect(() => pool({ maxWaiting: -1 })).toThrow(
      "Expected `signals.limit.maxWaiting` to be an integer from 0 to 1000000",
    );
    expect(() => pool({ maxKvCacheUsage: 0 })).toThrow(
      "Expected `signals.limit.maxKvCacheUsage` to be a number above 0, at most 1",
    );
    expect(() => pool(3)).toThrow("Expected `signals.limit` to be an object or `false`");
    expect(() => pool({ maxWaiting: 2, maxKvCacheUsage: 1 })).not.toThrow();
  });
});

import { describe, expect, it } from "vitest";
import { createPool } from "./pool.js";

const replica = { url: "http://127.0.0.1:1", maxConcurrency: 2 };
const off = { health: false, signals: false } as const;

describe("createPool options", () => {
  it("refuses unknown keys and out-of-range values with the one message shape", () => {
    expect(() => createPool({ replicas: [replica], retires: 1 } as never)).toThrow(
      "Unknown option `retires`; did you mean `retries`?",
    );
    expect(() => createPool({ replicas: [] })).toThrow(
      "Expected `replicas` to be an array of 1 to 1000 replicas",
    );
    expect(() => createPool({ replicas: [{ ...replica, url: "ftp://x" }], ...off })).toThrow(
      "Expected `replicas[0].url` to be an http(s) URL without query or fragment",
    );
    expect(() => createPool({ replicas: [replica, { ...replica, id: "r0" }], ...off })).toThrow(
      "Expected `replicas[1].id` to be a unique string",
    );
    expect(() => createPool({ replicas: [{ ...replica, maxConcurrency: 0 }], ...off })).toThrow(
      "maxConcurrency",
    );
    expect(() => createPool({ replicas: [replica], retries: 101, ...off })).toThrow(
      "Expected `retries` to be an integer from 0 to 100",
    );
    expect(() => createPool({ replicas: [replica], health: { failures: 0 }, signals: false })).toThrow(
      "Expected `health.failures` to be an integer from 1 to 1000",
    );
    expect(() => createPool({ replicas: [replica], health: false, signals: { maxKvCacheUsage: 2 } })).toThrow(
      "Expected `signals.maxKvCacheUsage` to be a number from 0 to 1",
    );
    expect(() =>
      createPool({ replicas: [replica], health: { ejectMs: 10, maxEjectMs: 5 }, signals: false }),
    ).toThrow("Expected `health.maxEjectMs` to be an integer from 10");
    expect(() => createPool({ replicas: [replica], health: { pth: "/x" } as never, signals: false })).toThrow(
      "Unknown option `health.pth`; did you mean `path`?",
    );
  });

  it("takes the sum of the replicas' limits as the scheduler's by default", async () => {
    const pool = createPool({
      replicas: [replica, { url: "http://127.0.0.1:2/", maxConcurrency: { initial: 3, min: 1, max: 8 } }],
      scheduler: {
        priorities: { interactive: { weight: 5 }, batch: { weight: 1 } },
        defaultPriority: "interactive",
      },
      ...off,
    });
    expect(pool.capacity).toBe(5);
    expect(pool.metrics().maxConcurrency).toBe(5);
    expect(pool.metrics().replicas.map((r) => [r.id, r.url, r.limit])).toEqual([
      ["r0", "http://127.0.0.1:1", 2],
      ["r1", "http://127.0.0.1:2", 3],
    ]);
    await pool.close();
  });
});

describe("scheduler.maxConcurrency", () => {
  it("caps the scheduler's limit below the replicas' sum, never above it, and is checked", async () => {
    const replicas = [replica, { ...replica, maxConcurrency: 6 }];
    const capped = createPool({ replicas, scheduler: { maxConcurrency: 5 }, ...off });
    expect(capped.capacity).toBe(5);
    expect(capped.metrics().maxConcurrency).toBe(5);
    expect(capped.metrics().replicas.map((r) => r.limit)).toEqual([2, 6]); // replicas keep their headroom
    await capped.close();
    const above = createPool({ replicas, scheduler: { maxConcurrency: 50 }, ...off });
    expect(above.capacity).toBe(8);
    await above.close();
    expect(() => createPool({ replicas, scheduler: { maxConcurrency: 0 }, ...off })).toThrow(
      "Expected `scheduler.maxConcurrency` to be an integer from 1 to 1000000",
    );
    const range = { initial: 2, min: 1, max: 4 };
    expect(() => createPool({ replicas, scheduler: { maxConcurrency: range as never }, ...off })).toThrow(
      "Expected `scheduler.maxConcurrency` to be an integer",
    );
  });
});

describe("pool.fetch input", () => {
  it("refuses a path that is not one, and unknown per-call options, before taking a slot", async () => {
    const pool = createPool({ replicas: [replica], ...off });
    await expect(pool.fetch("http://elsewhere/v1/models")).rejects.toMatchObject({ code: "INVALID_OPTION" });
    await expect(pool.fetch("//elsewhere/v1/models")).rejects.toThrow(
      "Expected `path` to be a path starting with one `/`",
    );
    await expect(pool.fetch("/v1/models", { prioirty: "batch" } as never)).rejects.toMatchObject({
      code: "INVALID_OPTION",
    });
    expect(pool.metrics().running).toBe(0);
    await pool.close();
  });
});

import { VirtualClock } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { createPool, type SignalsOptions } from "../src/index.js";
import { chatBody, jsonHeaders } from "./helpers.js";

const adaptive = {
  windowMs: 1_000,
  minSamples: 3,
  cooldownMs: 2_000,
  probeMs: 1_000, // the knee a queue set is tried again soon
  latencyTolerance: Number.POSITIVE_INFINITY,
};

/** Lets the pool's pending promises (a scrape's fetch and text) settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * One replica behind a fake `fetch` whose engine reports `engine.waiting` queued beside 16 running, on a
 * virtual clock: every request answers at once, a scrape runs every 250 ms.
 */
function setUp(
  signals: SignalsOptions = {},
  maxConcurrency: number | object = { initial: 24, min: 2, max: 32 },
) {
  const clock = new VirtualClock(0);
  const engine = { waiting: 0, kvCacheUsage: 0.5 };
  const fakeFetch = (async (url: string) => {
    if (url.endsWith("/metrics")) {
      return new Response(
        `vllm:num_requests_waiting ${engine.waiting}\nvllm:num_requests_running 16\nvllm:kv_cache_usage_perc ${engine.kvCacheUsage}\n`,
      );
    }
    return new Response('{"ok":true}', { headers: jsonHeaders });
  }) as typeof fetch;
  const pool = createPool({
    replicas: [
      {
        url: "http://10.0.0.1:8000",
        maxConcurrency: maxConcurrency as never,
        ...(typeof maxConcurrency === "number" ? {} : { adaptive }),
      },
    ],
    health: false,
    signals: { intervalMs: 250, ...signals },
    fetch: fakeFetch,
    clock,
  });
  const limit = () => pool.metrics().replicas[0]!.limit;
  /** The replica's limit after each request. */
  const limits: number[] = [];
  /** `seconds` of one request and one scrape every 250 ms. */
  const run = async (seconds: number): Promise<void> => {
    for (let i = 0; i < seconds * 4; i++) {
      const response = await pool.fetch("/v1/chat/completions", {
        method: "POST",
        headers: jsonHeaders,
        body: chatBody(`q${i}`),
      });
      await response.text();
      limits.push(limit());
      clock.advance(250);
      await settle();
    }
  };
  return { pool, engine, run, limit, limits };
}

describe("engine signals feed an adaptive replica limit", () => {
  it("an engine queue through a window cuts the limit where the queue would be gone; room lets it grow back", async () => {
    const { pool, engine, run, limit, limits } = setUp();
    await run(2);
    expect(limit()).toBeGreaterThan(24); // no queue: the limit may grow
    engine.waiting = 8; // 16 + 8 held for 16 run: a load of 1.5
    const from = limits.length;
    await run(3);
    const cutAt = limits.findIndex((value, i) => i > from && value < limits[i - 1]!);
    expect(limits[cutAt]).toBe(Math.floor(limits[cutAt - 1]! / 1.5));
    expect(pool.capacity).toBe(limit()); // the pool's scheduler follows
    const cut = limit();
    await run(4); // after the cool-down the readings say 1.5 again: one more cut
    expect(limit()).toBeLessThan(cut);
    engine.waiting = 0;
    const from2 = limits.length;
    await run(10);
    const after = limits.slice(from2);
    // At most one more cut (a window whose readings all came before the queue went), then growth past
    // the knee the queue set, though one request at a time never fills the limit.
    expect(Math.min(...after)).toBeGreaterThanOrEqual(Math.floor(after[0]! / 1.5));
    expect(limit()).toBeGreaterThan(after[0]!);
    await pool.close();
  });

  it("a KV cache above signals.limit.maxKvCacheUsage cuts too; `limit: false` leaves the limit to latency and errors", async () => {
    const kv = setUp({ limit: { maxKvCacheUsage: 0.8 } }, { initial: 20, min: 2, max: 20 });
    kv.engine.kvCacheUsage = 1; // a load of 1.25 (from the second scrape on)
    await kv.run(3);
    expect(kv.limit()).toBe(16);
    await kv.pool.close();

    const off = setUp({ limit: false }, { initial: 20, min: 2, max: 20 });
    off.engine.waiting = 8;
    await off.run(3);
    expect(off.limit()).toBe(20);
    expect(off.pool.metrics().replicas[0]!.engine?.waiting).toBe(8); // still scraped, still routed on
    await off.pool.close();
  });

  it("leaves a fixed limit alone", async () => {
    const fixed = setUp({}, 12);
    fixed.engine.waiting = 8;
    await fixed.run(3);
    expect(fixed.limit()).toBe(12);
    await fixed.pool.close();
  });
});

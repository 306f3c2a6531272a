import { VirtualClock } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { createPool, type PoolOptions, type ReplicaState, type Router } from "../src/index.js";
import { chatBody, jsonHeaders } from "./helpers.js";

/**
 * Two replicas behind a fake `fetch` on a virtual clock; the test streams each answer by hand. A router
 * sends a request to the replica its routing key names and keeps the states it was shown.
 */
function setUp(speed?: PoolOptions["speed"]) {
  const clock = new VirtualClock(0);
  const bodies: Array<ReadableStreamDefaultController<Uint8Array>> = [];
  const fakeFetch = (async () =>
    new Response(new ReadableStream<Uint8Array>({ start: (source) => void bodies.push(source) }), {
      headers: { "content-type": "text/event-stream" },
    })) as typeof fetch;
  const seen: ReplicaState[][] = [];
  const router: Router = {
    pick(replicas, key) {
      seen.push(replicas.map((replica) => ({ ...replica })));
      return key ?? null;
    },
  };
  const pool = createPool({
    replicas: [
      { url: "http://10.0.0.1:8000", id: "fast", maxConcurrency: 4 },
      { url: "http://10.0.0.2:8000", id: "slow", maxConcurrency: 4 },
    ],
    routing: router,
    health: false,
    signals: false,
    fetch: fakeFetch,
    clock,
    ...(speed === undefined ? {} : { speed }),
  });
  /** One answer from `id`: `chunks` chunks of 100 bytes, `stepMs` of virtual time apart. */
  const answer = async (id: string, chunks: number, stepMs: number): Promise<void> => {
    const response = await pool.fetch("/v1/chat/completions", {
      method: "POST",
      headers: jsonHeaders,
      body: chatBody("hi", 4, true),
      routingKey: id,
    });
    const source = bodies.at(-1)!;
    const reader = response.body!.getReader();
    for (let i = 0; i < chunks; i++) {
      if (i > 0) clock.advance(stepMs);
      source.enqueue(new Uint8Array(100));
      await reader.read();
    }
    source.close();
    expect((await reader.read()).done).toBe(true);
  };
  const speeds = () => Object.fromEntries(seen.at(-1)!.map((replica) => [replica.id, replica.speed]));
  return { pool, answer, speeds };
}

describe("speed estimates in the pool", () => {
  it("measures each replica's streaming rate and shows routers its speed relative to the median", async () => {
    const { pool, answer, speeds } = setUp();
    await answer("fast", 11, 10); // 1,000 bytes over 100 ms
    expect(speeds()).toEqual({ fast: 1, slow: 1 }); // no samples yet: full speed
    await answer("slow", 11, 40); // 1,000 bytes over 400 ms: a quarter of the rate
    await answer("fast", 2, 1); // shown the states before this answer's sample
    // Median of 10 and 2.5 bytes a ms: 6.25; fast is above it (1), slow at 0.4 of it.
    expect(speeds()).toEqual({ fast: 1, slow: 0.4 });
    await pool.close();
  });

  it("counts a slow replica at `minFactor` at least, and leaves speed out with `speed: false`", async () => {
    const bounded = setUp({ minFactor: 0.5, minSampleMs: 0 });
    await bounded.answer("fast", 11, 10);
    await bounded.answer("slow", 11, 100); // a tenth of the rate
    await bounded.answer("fast", 2, 1);
    expect(bounded.speeds()).toEqual({ fast: 1, slow: 0.5 });
    await bounded.pool.close();

    const off = setUp(false);
    await off.answer("fast", 11, 10);
    await off.answer("slow", 11, 100);
    await off.answer("fast", 2, 1);
    expect(off.speeds()).toEqual({ fast: undefined, slow: undefined });
    await off.pool.close();
  });

  it("rejects unknown and out-of-range speed options", () => {
    const replicas = [{ url: "http://10.0.0.1:8000", maxConcurrency: 4 }];
    expect(() => createPool({ replicas, speed: { halflife: 3 } as never })).toThrowError(/halfLife/);
    expect(() => createPool({ replicas, speed: { minFactor: 2 } })).toThrowError(/speed\.minFactor/);
  });
});

import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import type { Upstream } from "@llm-scheduler/upstream-sim";
import { afterEach, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../src/index.js";
import { chatBody, firstWithRoom, jsonHeaders, startReplicaSims } from "./helpers.js";

let sims: Upstream[] = [];
let pools: Pool[] = [];
let scheduler: Scheduler | undefined;

afterEach(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  await scheduler?.close();
  await Promise.all(sims.map((sim) => sim.close()));
  sims = [];
  pools = [];
  scheduler = undefined;
});

const init = (content: string, stream = false) => ({
  method: "POST",
  headers: jsonHeaders,
  body: chatBody(content, 4, stream),
});

describe("a pool over a scheduler of the caller's own, and pool.forward(permit)", () => {
  it("sets the scheduler's limit, sends an admitted request, and leaves the permit to its holder", async () => {
    sims = await startReplicaSims(2, { parallel: 4, ttftMs: 2, tokenMs: 2 });
    scheduler = createScheduler({ maxConcurrency: 1 });
    const pool = createPool({
      replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: 2 })),
      scheduler,
      health: false,
      signals: false,
    });
    pools.push(pool);
    expect(scheduler.maxConcurrency).toBe(4);
    const permit = await scheduler.acquire({ tenant: "alice" });
    const response = await pool.forward(permit, "/v1/chat/completions", init("hello", true));
    expect(response.status).toBe(200);
    expect(pool.metrics().replicas.reduce((sum, r) => sum + r.inFlight, 0)).toBe(1);
    expect(await response.text()).toContain("[DONE]");
    expect(pool.metrics().replicas.map((r) => r.inFlight)).toEqual([0, 0]); // the replica's slot: at the last byte
    expect(permit.held).toBe(true); // the permit: still its holder's
    permit.release();
    await pool.close();
    expect(scheduler.closed).toBe(false);
  });

  it("moves an admitted request that failed before its first byte to another replica, keeping its permit", async () => {
    sims = await startReplicaSims(2, { parallel: 4, ttftMs: 2, tokenMs: 2 });
    await sims[0]!.crash();
    scheduler = createScheduler({ maxConcurrency: 1 });
    const pool = createPool({
      replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: 2 })),
      scheduler,
      routing: firstWithRoom,
      health: false,
      signals: false,
    });
    pools.push(pool);
    const permit = await scheduler.acquire();
    const response = await pool.forward(permit, "/v1/chat/completions", init("again"));
    expect(response.status).toBe(200);
    await response.json();
    expect(pool.metrics().replicas.map((r) => [r.sent, r.failedBeforeFirstByte])).toEqual([
      [1, 1],
      [1, 0],
    ]);
    expect(permit.held).toBe(true);
    permit.release();
  });

  it("once closed, stops setting the limit of the scheduler it shares with the pool that replaced it", async () => {
    sims = await startReplicaSims(2, { parallel: 4, ttftMs: 2, tokenMs: 20 });
    scheduler = createScheduler({ maxConcurrency: 1 });
    const old = createPool({
      replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: 2 })),
      scheduler,
      routing: firstWithRoom,
      health: { failures: 1, intervalMs: 0 },
      signals: false,
    });
    const permit = await scheduler.acquire();
    const streaming = await old.forward(permit, "/v1/chat/completions", init("long", true));
    const next = createPool({
      replicas: [{ url: sims[1]!.url, maxConcurrency: 3 }],
      scheduler,
      health: false,
      signals: false,
    });
    pools.push(next);
    expect(scheduler.maxConcurrency).toBe(3);
    const closing = old.close({ drain: true, timeoutMs: 10_000 });
    let closed = false;
    void closing.then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(false); // it waits for the answer it is serving
    await sims[0]!.crash(); // the old pool's replica fails mid-stream: an ejection it no longer reports
    await streaming.text().catch(() => undefined);
    await closing;
    expect(old.metrics().replicas.map((r) => r.inFlight)).toEqual([0, 0]);
    expect(scheduler.maxConcurrency).toBe(3);
    permit.release();
  });

  it("takes the cap as `maxConcurrency` with a scheduler of one's own, not beside `scheduler.maxConcurrency`", () => {
    const replicas = [{ url: "http://127.0.0.1:1", maxConcurrency: 4 }];
    scheduler = createScheduler({ maxConcurrency: 1 });
    const pool = createPool({ replicas, scheduler, maxConcurrency: 3, health: false, signals: false });
    pools.push(pool);
    expect(scheduler.maxConcurrency).toBe(3);
    expect(() =>
      createPool({
        replicas,
        scheduler: { maxConcurrency: 2 },
        maxConcurrency: 3,
        health: false,
        signals: false,
      }),
    ).toThrow("Expected `maxConcurrency` to be left out when `scheduler.maxConcurrency` is given");
  });
});

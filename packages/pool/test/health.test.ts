import type { Upstream } from "@llm-scheduler/upstream-sim";
import { afterEach, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../src/index.js";
import { chatBody, firstWithRoom, jsonHeaders, startReplicaSims } from "./helpers.js";

let sims: Upstream[] = [];
let pool: Pool | undefined;

afterEach(async () => {
  await pool?.close();
  await Promise.all(sims.map((sim) => sim.close()));
  pool = undefined;
  sims = [];
});

const poll = { timeout: 10_000, interval: 10 };

describe("health", () => {
  it("keeps a configured scheduler limit while the replicas' sum is above it, and follows the sum below it", async () => {
    sims = await startReplicaSims(2, { ttftMs: 1, tokenMs: 1 });
    pool = createPool({
      replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: 4 })),
      scheduler: { maxConcurrency: 6 },
      routing: firstWithRoom,
      health: { failures: 1, ejectMs: 60_000, intervalMs: 0 },
      signals: false,
    });
    expect(pool.metrics().maxConcurrency).toBe(6);
    await sims[0]!.close(); // refused from now on: the first attempt fails there and ejects it
    const response = await pool.fetch("/v1/chat/completions", {
      method: "POST",
      headers: jsonHeaders,
      body: chatBody("hi"),
    });
    expect(response.status).toBe(200);
    await response.text();
    expect(pool.metrics().replicas.map((r) => r.healthy)).toEqual([false, true]);
    expect(pool.capacity).toBe(4);
    expect(pool.metrics().maxConcurrency).toBe(4);
  });

  it("ejects a replica after consecutive connection errors, shrinks capacity, and brings it back by a probe", async () => {
    sims = await startReplicaSims(3, { ttftMs: 1, tokenMs: 1 });
    pool = createPool({
      replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: 2 })),
      routing: firstWithRoom,
      health: { failures: 2, ejectMs: 100, intervalMs: 0 },
      signals: false,
    });
    const changes: unknown[] = [];
    pool.onHealth(() => {
      throw new Error("a listener that throws");
    });
    pool.onHealth((change) => changes.push(change));
    await sims[0]!.crash();
    for (let i = 0; i < 3; i++) {
      const response = await pool.fetch("/v1/chat/completions", {
        method: "POST",
        headers: jsonHeaders,
        body: chatBody(`q${i}`),
      });
      expect(response.status).toBe(200);
      await response.text();
    }
    const ejected = pool.metrics();
    expect(ejected.replicas[0]).toMatchObject({ healthy: false, ejections: 1, failedBeforeFirstByte: 2 });
    expect(ejected.maxConcurrency).toBe(4);
    expect(ejected.replicas[0]!.sent).toBe(2); // the third request never went there
    await sims[0]!.restart();
    await expect.poll(() => pool!.metrics().replicas[0]!.healthy, poll).toBe(true);
    expect(pool.metrics().maxConcurrency).toBe(6);
    expect(changes).toEqual([
      { id: "r0", healthy: false, capacity: 4 },
      { id: "r0", healthy: true, capacity: 6 },
    ]);
    const back = await pool.fetch("/v1/chat/completions", {
      method: "POST",
      headers: jsonHeaders,
      body: chatBody("q"),
    });
    await back.text();
    expect(sims[0]!.stats().served).toBe(1);
  });

  it("ejects a replica that fails its active checks, with no traffic, and keeps it out while probes fail", async () => {
    sims = await startReplicaSims(2, { ttftMs: 1, tokenMs: 1 });
    pool = createPool({
      replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: 3 })),
      health: { failures: 2, intervalMs: 20, ejectMs: 40, maxEjectMs: 80, timeoutMs: 500 },
      signals: false,
    });
    expect(pool.metrics().maxConcurrency).toBe(6);
    await sims[1]!.crash();
    await expect.poll(() => pool!.metrics().replicas[1]!.healthy, poll).toBe(false);
    expect(pool.metrics().maxConcurrency).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 200)); // probes fail meanwhile
    expect(pool.metrics().replicas[1]!.healthy).toBe(false);
    await sims[1]!.restart();
    await expect.poll(() => pool!.metrics().replicas[1]!.healthy, poll).toBe(true);
    expect(pool.metrics().maxConcurrency).toBe(6);
  });

  it("answers NO_REPLICA at once when every replica is ejected", async () => {
    sims = await startReplicaSims(1, { ttftMs: 1, tokenMs: 1 });
    pool = createPool({
      replicas: [{ url: sims[0]!.url, maxConcurrency: 2 }],
      health: { failures: 1, intervalMs: 0, ejectMs: 60_000 },
      signals: false,
    });
    await sims[0]!.crash();
    await expect(pool.fetch("/v1/models")).rejects.toMatchObject({
      code: "UPSTREAM_UNAVAILABLE",
      status: 502,
    });
    await expect(pool.fetch("/v1/models")).rejects.toMatchObject({ code: "NO_REPLICA", status: 503 });
    expect(pool.metrics().running).toBe(0);
  });
});

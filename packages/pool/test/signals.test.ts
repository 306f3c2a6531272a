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

const poll = { timeout: 10_000, interval: 5 };
const scheduler = {
  priorities: { interactive: { weight: 5 }, batch: { weight: 1 } },
  defaultPriority: "interactive",
} as const;

/** Loads a replica's engine from outside the pool: one request runs, `queued` wait in its queue. */
function loadDirectly(sim: Upstream, queued: number, maxTokens: number): Promise<string>[] {
  return Array.from({ length: queued + 1 }, (_, i) =>
    fetch(`${sim.url}/v1/chat/completions`, {
      method: "POST",
      body: chatBody(`direct ${i}`, maxTokens),
    }).then((r) => r.text()),
  );
}

describe("engine signals", () => {
  it("scrapes each replica's queue and holds batch work back from one whose engine queue is not empty", async () => {
    sims = await startReplicaSims(2, { parallel: 1, ttftMs: 1, tokenMs: 10 });
    pool = createPool({
      replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: 2 })),
      scheduler,
      routing: firstWithRoom,
      health: false,
      signals: { intervalMs: 20 },
    });
    const direct = loadDirectly(sims[0]!, 1, 40);
    await expect.poll(() => pool!.metrics().replicas[0]!.engine?.waiting, poll).toBe(1);
    expect(pool.metrics().replicas[0]!.engine).toEqual({ waiting: 1, running: 1, kvCacheUsage: 1 });
    const batch = await pool.fetch("/v1/chat/completions", {
      method: "POST",
      headers: jsonHeaders,
      body: chatBody("batch item"),
      priority: "batch",
    });
    await batch.text();
    expect(pool.metrics().replicas.map((r) => r.sent)).toEqual([0, 1]);
    const chat = await pool.fetch("/v1/chat/completions", {
      method: "POST",
      headers: jsonHeaders,
      body: chatBody("hi"),
    });
    await chat.text();
    expect(pool.metrics().replicas.map((r) => r.sent)).toEqual([1, 1]); // interactive is not held back
    await Promise.all(direct);
  });

  it("keeps held-back work waiting (holding its place) until the engine's queue is empty", async () => {
    sims = await startReplicaSims(1, { parallel: 1, ttftMs: 1, tokenMs: 10 });
    pool = createPool({
      replicas: [{ url: sims[0]!.url, maxConcurrency: 2 }],
      scheduler,
      health: false,
      signals: { intervalMs: 20, maxKvCacheUsage: 1 },
    });
    const direct = loadDirectly(sims[0]!, 1, 20);
    await expect.poll(() => pool!.metrics().replicas[0]!.engine?.waiting, poll).toBe(1);
    const batch = pool.fetch("/v1/chat/completions", {
      method: "POST",
      headers: jsonHeaders,
      body: chatBody("batch item"),
      priority: "batch",
    });
    await expect.poll(() => pool!.metrics().waitingForReplica, poll).toBe(1);
    expect(pool.metrics().running).toBe(1); // it holds its pool slot while it waits
    await Promise.all(direct);
    const answer = await batch;
    expect(answer.status).toBe(200);
    await answer.text();
    expect(pool.metrics().waitingForReplica).toBe(0);
    expect(pool.metrics().replicas[0]!.sent).toBe(1);
  });

  it("lets batch work onto a replica whose engine queue is within `maxWaiting`", async () => {
    sims = await startReplicaSims(2, { parallel: 1, ttftMs: 1, tokenMs: 10 });
    pool = createPool({
      replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: 2 })),
      scheduler,
      routing: firstWithRoom,
      health: false,
      signals: { intervalMs: 20, maxWaiting: 1, maxKvCacheUsage: 1 },
    });
    const direct = loadDirectly(sims[0]!, 1, 40);
    await expect.poll(() => pool!.metrics().replicas[0]!.engine?.waiting, poll).toBe(1);
    const batch = await pool.fetch("/v1/chat/completions", {
      method: "POST",
      headers: jsonHeaders,
      body: chatBody("batch item"),
      priority: "batch",
    });
    await batch.text();
    expect(pool.metrics().replicas.map((r) => r.sent)).toEqual([1, 0]); // one queued is within the bound
    await Promise.all(direct);
  });
});

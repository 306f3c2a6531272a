import type { Upstream } from "@llm-scheduler/upstream-sim";
import { afterEach, describe, expect, it } from "vitest";
import { createPool, type Pool, PoolError } from "../src/index.js";
import { chatBody, firstWithRoom, jsonHeaders, startReplicaSims } from "./helpers.js";

let sims: Upstream[] = [];
let pool: Pool | undefined;

afterEach(async () => {
  await pool?.close();
  await Promise.all(sims.map((sim) => sim.close()));
  pool = undefined;
  sims = [];
});

const post = (p: Pool, content: string, extra = {}) =>
  p.fetch("/v1/chat/completions", {
    method: "POST",
    headers: jsonHeaders,
    body: chatBody(content),
    ...extra,
  });

describe("pool.fetch over real replicas", () => {
  it("spreads work and never puts more than a replica's limit on it", async () => {
    sims = await startReplicaSims(3, { parallel: 8, ttftMs: 5, tokenMs: 5 });
    const limits = [1, 2, 3];
    pool = createPool({
      replicas: sims.map((sim, i) => ({ url: sim.url, maxConcurrency: limits[i]! })),
      health: false,
      signals: false,
    });
    expect(pool.metrics().maxConcurrency).toBe(6);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        post(pool!, `q${i}`).then((r) => r.json() as Promise<{ object: string }>),
      ),
    );
    expect(answers.every((a) => a.object === "chat.completion")).toBe(true);
    sims.forEach((sim, i) => {
      expect(sim.stats().maxInFlightSeen).toBeLessThanOrEqual(limits[i]!);
      expect(sim.stats().served).toBeGreaterThan(0);
    });
    const metrics = pool.metrics();
    expect(metrics.replicas.map((r) => r.inFlight)).toEqual([0, 0, 0]);
    expect(metrics.running).toBe(0);
    expect(metrics.completed).toBe(60);
  });

  it("holds the slot of a streamed answer until its last byte", async () => {
    sims = await startReplicaSims(1, { parallel: 4, ttftMs: 5, tokenMs: 20 });
    pool = createPool({
      replicas: [{ url: sims[0]!.url, maxConcurrency: 1 }],
      health: false,
      signals: false,
    });
    const response = await pool.fetch("/v1/chat/completions", {
      method: "POST",
      headers: jsonHeaders,
      body: chatBody("stream me", 5, true),
    });
    expect(pool.metrics().running).toBe(1);
    expect(pool.metrics().replicas[0]!.inFlight).toBe(1);
    const text = await response.text();
    expect(text).toContain("[DONE]");
    expect(pool.metrics().running).toBe(0);
    expect(pool.metrics().replicas[0]!.inFlight).toBe(0);
  });

  it("sends a request refused before its first byte to another replica, keeping its slot", async () => {
    sims = await startReplicaSims(3, { ttftMs: 1, tokenMs: 1 });
    const down = sims[0]!.url;
    await sims[0]!.close(); // connection refused from now on
    sims[1]!.setFaultRules([{ fault: "429", times: 5, promptIncludes: "q" }]);
    pool = createPool({
      replicas: [down, sims[1]!.url, sims[2]!.url].map((url) => ({ url, maxConcurrency: 4 })),
      routing: firstWithRoom,
      health: false,
      signals: false,
    });
    const response = await post(pool, "q-1");
    expect(response.status).toBe(200);
    const metrics = pool.metrics();
    expect(metrics.started).toBe(1); // one start in the scheduler: the retry kept its place
    expect(metrics.replicas.map((r) => r.failedBeforeFirstByte)).toEqual([1, 1, 0]);
    await response.text();
  });

  it("answers with the last refusal when every replica refused, and with UPSTREAM_UNAVAILABLE when none answered", async () => {
    sims = await startReplicaSims(2, { ttftMs: 1, tokenMs: 1 });
    for (const sim of sims) sim.setFaultRules([{ fault: "429", times: 5, promptIncludes: "q" }]);
    pool = createPool({
      replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: 2 })),
      health: false,
      signals: false,
    });
    const refused = await post(pool, "q-2");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
    const urls = sims.map((sim) => sim.url);
    await Promise.all(sims.map((sim) => sim.close()));
    await pool.close();
    pool = createPool({
      replicas: urls.map((url) => ({ url, maxConcurrency: 2 })),
      health: false,
      signals: false,
    });
    const error = await post(pool, "q-3").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PoolError);
    expect((error as PoolError).code).toBe("UPSTREAM_UNAVAILABLE");
    expect(pool.metrics().running).toBe(0);
  });

  it("never retries a request whose answer has begun: a replica that dies mid-stream fails that stream", async () => {
    sims = await startReplicaSims(2, { ttftMs: 1, tokenMs: 30 });
    pool = createPool({
      replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: 2 })),
      routing: { pick: (replicas) => (replicas[0]!.healthy ? replicas[0]!.id : null) },
      health: false,
      signals: false,
    });
    const response = await pool.fetch("/v1/chat/completions", {
      method: "POST",
      headers: jsonHeaders,
      body: chatBody("long", 50, true),
    });
    const reader = response.body!.getReader();
    await reader.read(); // a byte has reached the caller
    await sims[0]!.close();
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) break;
      })(),
    ).rejects.toThrow();
    expect(sims[1]!.stats().received).toBe(0);
    expect(pool.metrics().replicas[0]!.sent).toBe(1);
    expect(pool.metrics().running).toBe(0);
  });

  it("frees both slots and cancels the upstream call on a run timeout, and when the caller cancels the body", async () => {
    sims = await startReplicaSims(1, { ttftMs: 1, tokenMs: 20 });
    const sim = sims[0]!;
    pool = createPool({ replicas: [{ url: sim.url, maxConcurrency: 2 }], health: false, signals: false });
    const hung = pool.fetch("/v1/chat/completions", {
      method: "POST",
      headers: { ...jsonHeaders, "x-sim-fault": "hang" },
      body: chatBody("hang"),
      timeoutMs: 100,
    });
    await expect(hung).rejects.toMatchObject({ code: "RUN_TIMEOUT" });
    await expect.poll(() => pool!.metrics().running, { timeout: 5_000, interval: 5 }).toBe(0);
    expect(pool.metrics().replicas[0]!.inFlight).toBe(0);
    await expect.poll(() => sim.stats().inFlight, { timeout: 5_000, interval: 5 }).toBe(0);

    const streamed = await pool.fetch("/v1/chat/completions", {
      method: "POST",
      headers: jsonHeaders,
      body: chatBody("long", 100, true),
    });
    const reader = streamed.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(pool.metrics().running).toBe(0);
    expect(pool.metrics().replicas[0]!.inFlight).toBe(0);
    await expect.poll(() => sim.stats().cancelled, { timeout: 5_000, interval: 5 }).toBe(2);
  });

  it("lets a more urgent request preempt one that has no byte yet, as the scheduler does with one upstream", async () => {
    sims = await startReplicaSims(1, { ttftMs: 1, tokenMs: 1 });
    pool = createPool({
      replicas: [{ url: sims[0]!.url, maxConcurrency: 1 }],
      scheduler: {
        priorities: { interactive: { weight: 5, preempts: ["batch"] }, batch: { weight: 1 } },
        defaultPriority: "interactive",
      },
      health: false,
      signals: false,
    });
    const batch = pool.fetch("/v1/chat/completions", {
      method: "POST",
      headers: { ...jsonHeaders, "x-sim-fault": "hang" },
      body: chatBody("batch"),
      priority: "batch",
    });
    const batchError = batch.catch((error: unknown) => error);
    await expect.poll(() => sims[0]!.stats().inFlight, { timeout: 5_000, interval: 5 }).toBe(1);
    const chat = await post(pool, "urgent");
    expect(chat.status).toBe(200);
    await chat.text();
    expect(await batchError).toMatchObject({ code: "PREEMPTED" });
    expect(pool.metrics().replicas[0]!.inFlight).toBe(0);
    expect(pool.metrics().running).toBe(0);
  });
});

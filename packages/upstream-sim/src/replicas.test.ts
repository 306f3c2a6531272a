import { afterEach, describe, expect, it } from "vitest";
import { startReplicas, type Upstream } from "./server.js";

let sims: Upstream[] = [];

afterEach(async () => {
  await Promise.all(sims.map((sim) => sim.close()));
  sims = [];
});

function ask(sim: Upstream, content: string, maxTokens = 2): Promise<Response> {
  return fetch(`${sim.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content }], max_tokens: maxTokens }),
  });
}

async function timed(run: () => Promise<Response>): Promise<number> {
  const start = performance.now();
  await (await run()).text();
  return performance.now() - start;
}

const metric = (text: string, name: string): number =>
  Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, "m").exec(text)?.[1]);

describe("startReplicas", () => {
  it("starts several replicas on their own ports, with their own prefix caches", async () => {
    sims = await startReplicas(2, {
      ttftMs: 1,
      tokenMs: 1,
      prefillMsPerToken: 0.5,
      prefixCacheBlocks: 1_000,
    });
    expect(new Set(sims.map((sim) => sim.port)).size).toBe(2);
    const system = "You are a careful assistant. ".repeat(140); // about 1,000 tokens
    const cold = await timed(() => ask(sims[0]!, `${system} first question`));
    const warm = await timed(() => ask(sims[0]!, `${system} second question`));
    const elsewhere = await timed(() => ask(sims[1]!, `${system} third question`));
    expect(warm).toBeLessThan(cold / 3); // a cache hit skips most of the prefill
    expect(elsewhere).toBeGreaterThan(warm * 3); // the other replica's cache is its own
    const text = await (await fetch(`${sims[0]!.url}/metrics`)).text();
    expect(metric(text, "vllm:prefix_cache_hits_total")).toBeGreaterThan(900);
    expect(metric(text, "vllm:prefix_cache_queries_total")).toBeGreaterThan(1_800);
  });

  it("serves /metrics in vLLM's format with the running batch and the queue", async () => {
    sims = await startReplicas(1, { parallel: 1, ttftMs: 1, tokenMs: 50 });
    const sim = sims[0]!;
    const running = [ask(sim, "a", 4), ask(sim, "b", 4)];
    await expect.poll(() => sim.stats().queued, { timeout: 2_000, interval: 2 }).toBe(1);
    const text = await (await fetch(`${sim.url}/metrics`)).text();
    expect(text).toContain("# TYPE vllm:num_requests_running gauge");
    expect(metric(text, "vllm:num_requests_running")).toBe(1);
    expect(metric(text, "vllm:num_requests_waiting")).toBe(1);
    expect(metric(text, "vllm:kv_cache_usage_perc")).toBe(1);
    await Promise.all(running.map(async (r) => (await r).text()));
  });

  it("crashes (connections cut, port closed), restarts on the same port, and slows down on demand", async () => {
    sims = await startReplicas(1, { ttftMs: 1, tokenMs: 20 });
    const sim = sims[0]!;
    const streaming = await fetch(`${sim.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: [{ role: "user", content: "x" }], max_tokens: 50, stream: true }),
    });
    await sim.crash();
    expect(sim.up).toBe(false);
    await expect(streaming.text()).rejects.toThrow();
    await expect(fetch(`${sim.url}/health`)).rejects.toThrow();
    await sim.restart();
    expect((await fetch(`${sim.url}/health`)).status).toBe(200);
    const full = await timed(() => ask(sim, "y", 10));
    const answer = await fetch(`${sim.url}/admin/speed`, {
      method: "POST",
      body: JSON.stringify({ factor: 4 }),
    });
    expect(await answer.json()).toEqual({ factor: 4 });
    const slow = await timed(() => ask(sim, "z", 10));
    expect(slow).toBeGreaterThan(full * 2);
  });

  it("crashes through the admin endpoint and comes back by itself", async () => {
    sims = await startReplicas(1, { ttftMs: 1, tokenMs: 1 });
    const sim = sims[0]!;
    const answer = await fetch(`${sim.url}/admin/crash`, { method: "POST", body: '{"restartAfterMs":100}' });
    expect(answer.status).toBe(202);
    await expect.poll(() => sim.up, { timeout: 2_000, interval: 5 }).toBe(false);
    await expect.poll(() => sim.up, { timeout: 5_000, interval: 20 }).toBe(true);
    expect((await fetch(`${sim.url}/health`)).status).toBe(200);
    const bad = await fetch(`${sim.url}/admin/speed`, { method: "POST", body: '{"factor":0}' });
    expect(bad.status).toBe(400);
  });

  it("refuses a bad count", async () => {
    await expect(startReplicas(0)).rejects.toThrow("Expected `replicas` to be an integer from 1 to 1000");
  });
});

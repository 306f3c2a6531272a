import { Recorder, resolveScenario } from "@llm-scheduler/simulator";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyOf } from "./keys.js";
import { realClock } from "./real-clock.js";
import { followWaits, type ScheduledGateway, startScheduledGateway } from "./scheduled-gateway.js";

describe("the demo's llm-scheduler gateway (@llm-scheduler/gateway, configured in code)", () => {
  let sim: Upstream;
  let gateway: ScheduledGateway;
  let stop: () => void;
  const recorder = new Recorder(realClock);
  // Two slots, one of them kept for chat: a batch request waits while chat goes straight through.
  const scenario = resolveScenario({
    durationMs: 1,
    gateway: { maxConcurrency: 2 },
    scheduler: { priorities: { interactive: { weight: 5, reserved: 1 }, batch: { weight: 1 } } },
    chat: { tenant: "chat" },
    batch: { tenants: [{ name: "etl", items: 1 }] },
  });

  beforeAll(async () => {
    sim = await startUpstream({ port: 0, parallel: 4, ttftMs: 2, tokenMs: 2 });
    gateway = await startScheduledGateway({ scenario, upstream: sim.url, model: "m" });
    stop = followWaits(gateway.scheduler, recorder);
  });

  afterAll(async () => {
    stop?.();
    await gateway?.close();
    await sim?.close();
  });

  const post = (key: string, maxTokens: number) =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        messages: [{ role: "user", content: "hi" }],
        max_tokens: maxTokens,
      }),
    });

  it("refuses an unknown key, and keeps its own dashboard and metrics closed (no admin key)", async () => {
    const unknown = await post("sk-nobody-at-all-here", 1);
    expect(unknown.status).toBe(401);
    await unknown.arrayBuffer();
    for (const path of ["/dashboard/m/api/snapshot", "/metrics"]) {
      const closed = await fetch(`${gateway.url}${path}`, {
        headers: { authorization: `Bearer ${keyOf("chat")}` },
      });
      expect([401, 403], path).toContain(closed.status);
      expect(await closed.text(), path).not.toContain("etl");
    }
  });

  it("schedules by the key's priority and reports each request's wait and slot to the sink", async () => {
    const etl = [post(keyOf("etl"), 20), post(keyOf("etl"), 20)];
    // Both batch requests are in (one runs, one waits for the unreserved slot) before chat arrives.
    for (let i = 0; i < 250 && gateway.scheduler.metrics().priorities.batch?.queued !== 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const chat = await post(keyOf("chat"), 1);
    expect(chat.status).toBe(200);
    await chat.arrayBuffer();
    const answers = await Promise.all(etl);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    await Promise.all(answers.map((answer) => answer.arrayBuffer()));

    const chatWaits = recorder.waits.get("interactive");
    const batchWaits = recorder.waits.get("batch");
    expect(chatWaits?.started).toBe(1);
    expect(batchWaits?.started).toBe(2);
    expect(Math.max(...(batchWaits?.waits ?? []))).toBeGreaterThan(20); // waited for the first one
    expect(chatWaits?.waits[0]).toBeLessThan(20); // the reserved slot was free
    expect(sim.stats().maxInFlightSeen).toBeLessThanOrEqual(2);
    // Every slot the sink saw taken was given back.
    const slots = recorder.slots(recorder.now());
    expect(slots.busyMs.batch).toBeGreaterThan(20);
    expect(slots.busyMs.interactive).toBeGreaterThan(0);
  });
});

import { Recorder } from "@llm-scheduler/simulator";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayServer, startFifoGateway } from "./gateways.js";
import type { KeyEntry } from "./keys.js";
import { WaitProbe } from "./probe.js";
import { realClock } from "./real-clock.js";

describe("the FIFO gateway", () => {
  let sim: Upstream;
  let gateway: GatewayServer;
  const recorder = new Recorder(realClock);
  const keys = new Map<string, KeyEntry>([
    ["sk-chat", { tenant: "chat", priority: "interactive" }],
    ["sk-etl", { tenant: "etl", priority: "batch" }],
  ]);

  beforeAll(async () => {
    sim = await startUpstream({ port: 0, parallel: 4, ttftMs: 2, tokenMs: 1 });
    gateway = await startFifoGateway({ upstream: sim.url, keys, probe: new WaitProbe(recorder) }, 1);
  });

  afterAll(async () => {
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

  it("refuses unknown keys", async () => {
    const answer = await post("sk-nobody", 1);
    expect(answer.status).toBe(401);
  });

  it("serves one request at a time, first come first served, whatever the key, and measures the waits", async () => {
    const order: string[] = [];
    const send = (name: string, key: string) =>
      post(key, 20).then((answer) => order.push(`${name} ${answer.status}`));
    const inGateway = async (n: number) => {
      for (let i = 0; i < 250; i++) {
        const { queued, running } = gateway.snapshot();
        const total =
          Object.values(queued).reduce((a, b) => a + b, 0) +
          Object.values(running).reduce((a, b) => a + b, 0);
        if (total >= n) return;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    };
    // One after the other into the gateway, so the arrival order is known.
    const first = send("etl-1", "sk-etl");
    await inGateway(1);
    const second = send("etl-2", "sk-etl");
    await inGateway(2);
    const third = send("chat", "sk-chat");
    await Promise.all([first, second, third]);
    expect(order).toEqual(["etl-1 200", "etl-2 200", "chat 200"]);
    expect(sim.stats().maxInFlightSeen).toBe(1);
    const chat = recorder.waits.get("interactive");
    expect(chat?.started).toBe(1);
    expect(chat?.waits[0]).toBeGreaterThan(20); // it waited for both batch requests
    // Slot use, from the same probe: all three held the one slot in turn, and something waited meanwhile.
    const slots = recorder.slots(recorder.now());
    expect(slots.busyMs.batch).toBeGreaterThan(20);
    expect(slots.busyMs.interactive).toBeGreaterThan(0);
    expect(slots.waitingMs).toBeGreaterThan(20);
    expect(slots.busyWhileWaitingMs).toBeLessThanOrEqual(slots.waitingMs + 1e-6); // one slot at most
    expect(gateway.snapshot()).toEqual({
      queued: { batch: 0, interactive: 0 },
      running: { batch: 0, interactive: 0 },
    });
  });
});

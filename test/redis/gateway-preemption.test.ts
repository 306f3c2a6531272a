import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { RedisStore } from "@llm-scheduler/redis";
import { startUpstream } from "@llm-scheduler/upstream-sim";
import { describe, expect, it } from "vitest";
import { startExpressGateway, startHonoGateway } from "../adapters/gateways.js";
import { useRedisServer, waitFor } from "./helpers.js";

const redis = useRedisServer();
const ROUTE = "/v1/chat/completions";

/** A streamed completion through one gateway, with its priority in `x-priority`. */
function post(url: string, priority: string, maxTokens: number): Promise<Response> {
  return fetch(`${url}${ROUTE}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-priority": priority },
    body: JSON.stringify({
      messages: [{ role: "user", content: "count" }],
      stream: true,
      max_tokens: maxTokens,
    }),
  });
}

/** Two schedulers on one Redis prefix (one slot, interactive preempts batch), each behind a gateway. */
async function twoGateways(upstreamUrl: string, prefix: string) {
  const options = {
    maxConcurrency: 1,
    abortGraceMs: 2_000,
    priorities: { interactive: { preempts: ["batch"] }, batch: {} },
  };
  const stores = [0, 1].map(() => new RedisStore({ url: redis.server.url, prefix }));
  const [a, b] = stores.map((store) => createScheduler({ ...options, store })) as [Scheduler, Scheduler];
  const gatewayA = await startHonoGateway(a, upstreamUrl);
  const gatewayB = await startExpressGateway(b, upstreamUrl);
  return {
    a,
    b,
    urlA: gatewayA.url,
    urlB: gatewayB.url,
    async close() {
      await gatewayA.close();
      await gatewayB.close();
      await Promise.all([a.close({ timeoutMs: 100 }), b.close({ timeoutMs: 100 })]);
      await Promise.all(stores.map((store) => store.close()));
    },
  };
}

describe("preemption across two gateways on one Redis", () => {
  it("stops a batch stream on the Hono gateway A (503, x-preempted) for an interactive request on the Express gateway B", async () => {
    // The upstream sends its headers at once and the first token 1.5 s later, as vLLM does: the batch
    // request is running upstream, with no byte of its answer sent, when the interactive one comes.
    const upstream = await startUpstream({ parallel: 4, ttftMs: 1_500, tokenMs: 1, prefillMsPerToken: 0 });
    const { a, b, urlA, urlB, close } = await twoGateways(upstream.url, "gateway-preempt:");
    try {
      const batch = post(urlA, "batch", 3);
      await waitFor(() => upstream.stats().received >= 1, 5_000, "the batch request to reach the upstream");
      const chat = post(urlB, "interactive", 2);
      const stopped = await batch;
      expect(stopped.status).toBe(503);
      expect(stopped.headers.get("x-preempted")).toBe("1");
      expect(stopped.headers.get("retry-after")).toBe("1");
      expect(await stopped.json()).toMatchObject({ error: { code: "PREEMPTED" } });
      const served = await chat;
      expect(served.status).toBe(200);
      expect(await served.text()).toMatch(/data: \[DONE\]\n\n$/);
      expect(a.metrics().priorities.batch).toMatchObject({ preempted: 1 });
      await waitFor(() => upstream.stats().cancelled >= 1, 5_000, "the batch upstream call to be cancelled");
      await waitFor(() => a.metrics().running === 0 && b.metrics().running === 0, 5_000, "slots released");
    } finally {
      await close();
      await upstream.close();
    }
  });

  it("never stops a batch stream on gateway A that has sent its first byte: the interactive request on B waits for it", async () => {
    // The first token comes at once, the next ones 200 ms apart: the batch answer has started streaming.
    const upstream = await startUpstream({ parallel: 4, ttftMs: 0, tokenMs: 200, prefillMsPerToken: 0 });
    const { a, b, urlA, urlB, close } = await twoGateways(upstream.url, "gateway-stream:");
    try {
      const stream = await post(urlA, "batch", 4);
      const reader = stream.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain("data: ");
      const chat = post(urlB, "interactive", 1);
      await waitFor(() => b.metrics().queued === 1, 5_000, "the interactive request to wait");
      let text = "";
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        text += new TextDecoder().decode(chunk.value);
      }
      expect(stream.status).toBe(200);
      expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
      const served = await chat;
      expect(served.status).toBe(200);
      expect(await served.text()).toMatch(/data: \[DONE\]\n\n$/);
      expect(a.metrics().priorities.batch).toMatchObject({ preempted: 0 });
    } finally {
      await close();
      await upstream.close();
    }
  });
});

import { createScheduler } from "@llm-scheduler/core";
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

describe("preemption across two gateways on one Redis", () => {
  it("stops a batch stream on the Hono gateway A (503, x-preempted) for an interactive request on the Express gateway B", async () => {
    // The upstream sends its headers at once and the first token 1.5 s later, as vLLM does: the batch
    // request is running upstream, with no byte of its answer sent, when the interactive one comes.
    const upstream = await startUpstream({ parallel: 4, ttftMs: 1_500, tokenMs: 1, prefillMsPerToken: 0 });
    const options = {
      maxConcurrency: 1,
      abortGraceMs: 2_000,
      priorities: { interactive: { preempts: ["batch"] }, batch: {} },
    };
    const stores = [0, 1].map(() => new RedisStore({ url: redis.server.url, prefix: "gateway-preempt:" }));
    const [a, b] = stores.map((store) => createScheduler({ ...options, store }));
    const gatewayA = await startHonoGateway(a!, upstream.url);
    const gatewayB = await startExpressGateway(b!, upstream.url);
    try {
      const batch = post(gatewayA.url, "batch", 3);
      await waitFor(() => upstream.stats().received >= 1, 5_000, "the batch request to reach the upstream");
      const chat = post(gatewayB.url, "interactive", 2);
      const stopped = await batch;
      expect(stopped.status).toBe(503);
      expect(stopped.headers.get("x-preempted")).toBe("1");
      expect(stopped.headers.get("retry-after")).toBe("1");
      expect(await stopped.json()).toMatchObject({ error: { code: "PREEMPTED" } });
      const served = await chat;
      expect(served.status).toBe(200);
      expect(await served.text()).toMatch(/data: \[DONE\]\n\n$/);
      expect(a!.metrics().priorities.batch).toMatchObject({ preempted: 1 });
      await waitFor(() => upstream.stats().cancelled >= 1, 5_000, "the batch upstream call to be cancelled");
      await waitFor(() => a!.metrics().running === 0 && b!.metrics().running === 0, 5_000, "slots released");
    } finally {
      await gatewayA.close();
      await gatewayB.close();
      await Promise.all([a!.close({ timeoutMs: 100 }), b!.close({ timeoutMs: 100 })]);
      await Promise.all(stores.map((store) => store.close()));
      await upstream.close();
    }
  });
});

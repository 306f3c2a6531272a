import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../redis/redis-server.js";
import { CHAT_KEY, type Harness, PRIORITIES, startGateway } from "./harness.js";

/** Two gateway processes' worth of gateways on one Redis: one limit on the upstream they share. */
let redis: RedisServer;
let a: Harness;
let b: Harness;

beforeAll(async () => {
  redis = await startRedisServer();
  const config = (url: string) => ({
    models: { m: { upstreams: [url], maxConcurrency: 2, priorities: PRIORITIES } },
    keys: [{ key: CHAT_KEY, tenant: "chat-app", priority: "interactive" }],
    auth: "keys",
    redis: { url: redis.url, prefix: "gw-test" },
  });
  a = await startGateway((sims) => config(sims[0]!.url), 1, { tokenMs: 20, parallel: 16 });
  // The second gateway forwards to the first one's simulator: the same upstream behind both.
  b = await startGateway(() => config(a.sims[0]!.url), 0);
}, 30_000);

afterAll(async () => {
  await b?.close();
  await a?.close();
  await redis?.stop();
});

const chat = (url: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${CHAT_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 8,
      stream: true,
    }),
  }).then(async (response) => ({ status: response.status, body: await response.text() }));

describe("gateways sharing one Redis", () => {
  it("never put more than the model's limit on the upstream between them, and answer every request", async () => {
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => chat(i % 2 === 0 ? a.url : b.url)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(16).fill(200));
    expect(answers.every((answer) => answer.body.includes("data: [DONE]"))).toBe(true);
    const stats = a.sims[0]!.stats();
    expect(stats.received).toBe(16);
    expect(stats.maxInFlightSeen).toBe(2); // both gateways' work, never more than the one limit
  });
});

describe("gateways sharing one Redis in front of a pool of replicas", () => {
  it("never put more than a replica's limit on it between them (the pool's replica ledger)", async () => {
    const config = (urls: readonly string[]) => ({
      // the same system prompt everywhere: prefix routing sends both gateways' work to the same replica
      models: { p: { upstreams: urls, maxConcurrency: 2, priorities: PRIORITIES, pool: { signals: false } } },
      keys: [{ key: CHAT_KEY, tenant: "chat-app", priority: "interactive" }],
      auth: "keys",
      redis: { url: redis.url, prefix: "gw-pool-test" },
    });
    const c = await startGateway((sims) => config(sims.map((sim) => sim.url)), 2, {
      tokenMs: 20,
      parallel: 16,
    });
    const d = await startGateway(() => config(c.sims.map((sim) => sim.url)), 0);
    try {
      const ask = (url: string) =>
        fetch(`${url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${CHAT_KEY}`, "content-type": "application/json" },
          body: JSON.stringify({
            model: "p",
            messages: [
              { role: "system", content: "You are the tax assistant of ACME." },
              { role: "user", content: "Hi" },
            ],
            max_tokens: 8,
          }),
        }).then(async (response) => ({ status: response.status, body: await response.text() }));
      const client = new Redis(redis.url);
      const leaseKeys = new Set<string>();
      const watching = (async () => {
        for (let i = 0; i < 40; i++) {
          for (const key of await client.keys("gw-pool-test:{model:p}:lease:*")) leaseKeys.add(key);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) => ask(i % 2 === 0 ? c.url : d.url)),
      );
      await watching;
      await client.quit();
      expect(answers.map((answer) => answer.status)).toEqual(Array(16).fill(200));
      for (const sim of c.sims) expect(sim.stats().maxInFlightSeen).toBeLessThanOrEqual(2);
      expect(c.sims[0]!.stats().received + c.sims[1]!.stats().received).toBe(16);
      expect(leaseKeys.size).toBeGreaterThan(0); // the leases were taken in Redis, under the model's hash tag
    } finally {
      await d.close();
      await c.close();
    }
  }, 30_000);
});

import { MemoryStore } from "@llm-scheduler/core/kit";
import { RedisStore } from "@llm-scheduler/redis";
import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../redis/redis-server.js";
import { optionsOf, play, scenario } from "./conformance-scenario.js";
import { Driver } from "./driver.js";
import { playQuotas, quotaOptionsOf, quotaScenario } from "./quota-scenario.js";

/**
 * The in-memory store and the Redis store implement the same picking rule twice (TypeScript and Lua).
 * This test feeds random sequences of the same calls to both (see conformance-scenario.ts) and checks
 * that they make exactly the same choices, in the same order; a second property does the same with
 * tenant quotas, token estimates, usage reports, the token budget and token fairness (see
 * quota-scenario.ts).
 */

describe("memory and Redis stores make the same choices", () => {
  let redis: RedisServer;
  let client: Redis;
  let run = 0;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = new Redis(redis.url);
  });

  afterAll(async () => {
    await client?.quit();
    await redis?.stop();
  });

  it("for random sequences of enqueues, releases, removals, time and new limits", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const options = optionsOf(s);
        const memory = await play(new Driver(new MemoryStore(), options), s);
        const store = new RedisStore({ client, prefix: `conformance${++run}:`, agingClock: "scheduler" });
        try {
          const shared = await play(new Driver(store, options), s);
          expect(shared).toEqual(memory);
        } finally {
          await store.close();
        }
      }),
      { numRuns: 300 },
    );
  });

  it("for random sequences with tenant quotas, token estimates, usage reports and token fairness", async () => {
    await fc.assert(
      fc.asyncProperty(quotaScenario, async (s) => {
        const options = quotaOptionsOf(s);
        const memory = await playQuotas(new Driver(new MemoryStore(), options), s);
        const store = new RedisStore({ client, prefix: `conformance${++run}:`, agingClock: "scheduler" });
        try {
          const shared = await playQuotas(new Driver(store, options), s);
          expect(shared).toEqual(memory);
        } finally {
          await store.close();
        }
      }),
      { numRuns: 300 },
    );
  });
});

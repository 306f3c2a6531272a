import type { Store } from "@llm-scheduler/core/kit";
import { RedisStore } from "@llm-scheduler/redis";
import { afterAll, beforeAll } from "vitest";
import { type RedisServer, startRedisServer } from "../redis/redis-server.js";
import { runStoreContract } from "./contract.js";
import { runQuotaContract } from "./quota-contract.js";

let redis: RedisServer;
let prefixes = 0;

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await redis?.stop();
});

const redisStores = {
  name: "redis",
  create: () => new RedisStore({ url: redis.url, prefix: `contract${++prefixes}:`, agingClock: "scheduler" }),
  dispose: (store: Store) => (store as RedisStore).close(),
};
runStoreContract(redisStores);
runQuotaContract(redisStores);

import { createPool, type Pool, type PoolOptions } from "@llm-scheduler/pool";
import { type RedisReplicaLedger, redisReplicaLedger } from "@llm-scheduler/redis";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { useRedisServer, waitFor } from "./helpers.js";

// Two pools on one Redis are two gateway instances of one pool, over the same simulated replicas.
const redis = useRedisServer({ admin: true });

let sims: Upstream[] = [];
let pools: Pool[] = [];
let ledgers: RedisReplicaLedger[] = [];
let clients: Redis[] = [];

afterEach(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  for (const ledger of ledgers) ledger.close();
  await Promise.all(clients.map((client) => client.quit().catch(() => undefined)));
  await Promise.all(sims.map((sim) => sim.close()));
  sims = [];
  pools = [];
  ledgers = [];
  clients = [];
});

function ledgerOn(pool: string, leaseMs = 10_000): { ledger: RedisReplicaLedger; client: Redis } {
  const client = new Redis(redis.server.url);
  client.on("error", () => {});
  clients.push(client);
  const ledger = redisReplicaLedger(client, { prefix: "t", pool, leaseMs });
  ledgers.push(ledger);
  return { ledger, client };
}

async function startSims(count: number): Promise<Upstream[]> {
  sims = await Promise.all(
    Array.from({ length: count }, () =>
      startUpstream({ prefillMsPerToken: 0, parallel: 16, ttftMs: 25, tokenMs: 5 }),
    ),
  );
  return sims;
}

function instance(options: Omit<PoolOptions, "replicas">, limit: number): Pool {
  const pool = createPool({
    replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: limit })),
    signals: false,
    ...options,
  });
  pools.push(pool);
  return pool;
}

const chat = (pool: Pool, content: string): Promise<unknown> =>
  pool
    .fetch("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "sim-model", messages: [{ role: "user", content }], max_tokens: 4 }),
    })
    .then((response) => response.json());

const burst = (pool: Pool, name: string, count: number): Promise<unknown[]> =>
  Promise.all(Array.from({ length: count }, (_, i) => chat(pool, `${name}${i}`)));

describe("a pool's replica limits across gateway instances (Redis ledger)", () => {
  it("without a shared ledger, two instances put twice a replica's limit on it (the peer run)", async () => {
    await startSims(2);
    const a = instance({ health: false }, 2);
    const b = instance({ health: false }, 2);
    await Promise.all([burst(a, "a", 30), burst(b, "b", 30)]);
    expect(Math.max(...sims.map((sim) => sim.stats().maxInFlightSeen))).toBeGreaterThan(2);
  });

  it("with one, concurrent requests from both never exceed any replica's limit", async () => {
    await startSims(2);
    const a = instance({ health: false, shared: { ledger: ledgerOn("limits").ledger } }, 2);
    const b = instance({ health: false, shared: { ledger: ledgerOn("limits").ledger } }, 2);
    const both = await Promise.all([burst(a, "a", 30), burst(b, "b", 30)]);
    expect(both.flat().every((x) => (x as { object: string }).object === "chat.completion")).toBe(true);
    for (const sim of sims) {
      expect(sim.stats().maxInFlightSeen).toBeLessThanOrEqual(2);
      expect(sim.stats().served).toBeGreaterThan(0);
    }
    expect(await ledgers[0]!.counts(["r0", "r1"])).toEqual({ r0: 0, r1: 0 });
    expect(pools.map((pool) => pool.metrics().completed)).toEqual([30, 30]);
  });

  it("a dead instance's leases expire; a live one's are renewed", async () => {
    const live = ledgerOn("expiry", 300);
    const dead = ledgerOn("expiry", 300);
    const other = ledgerOn("expiry", 300);
    expect(await live.ledger.take("r0", 2)).not.toBeNull();
    expect(await dead.ledger.take("r1", 1)).not.toBeNull();
    expect(await other.ledger.take("r1", 1)).toBeNull();
    dead.ledger.close(); // its heartbeat stops, as when the process dies
    dead.client.disconnect();
    await waitFor(async () => (await other.ledger.take("r1", 1)) !== null, 5_000, "the dead lease to expire");
    // Three lease lifetimes later, the live instance still holds its lease (its heartbeat renews it).
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(await other.ledger.counts(["r0", "r1"])).toEqual({ r0: 1, r1: 1 });
    expect(await other.ledger.take("r0", 1)).toBeNull();
  });

  it("an ejection by one instance is seen by the other", async () => {
    await startSims(2);
    await sims[1]!.close(); // r1 refuses connections
    const health = { intervalMs: 0, failures: 1, ejectMs: 60_000 };
    const a = instance({ health, shared: { ledger: ledgerOn("health").ledger, syncMs: 20 } }, 2);
    const b = instance({ health, shared: { ledger: ledgerOn("health").ledger, syncMs: 20 } }, 2);
    await burst(a, "a", 4); // two go to r1 at once: refused, ejected there, answered by r0
    expect(a.metrics().completed).toBe(4);
    expect(a.metrics().replicas[1]).toMatchObject({ healthy: false, ejections: 1 });
    await waitFor(() => !b.metrics().replicas[1]!.healthy, 5_000, "the other instance to see the ejection");
    await burst(b, "b", 10);
    expect(b.metrics().replicas[1]).toMatchObject({ healthy: false, sent: 0, failedBeforeFirstByte: 0 });
    expect(b.metrics().completed).toBe(10);
  });
});

import { createPool, leastLoaded, type Pool, type PoolOptions } from "@llm-scheduler/pool";
import { type RedisReplicaLedger, redisReplicaLedger } from "@llm-scheduler/redis";
import { startReplicas, type Upstream, type UpstreamOptions } from "@llm-scheduler/upstream-sim";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { sleep, useRedisServer, waitFor } from "./helpers.js";

// Two pools on one Redis are two gateway instances of one pool, over the same simulated replicas: the
// routers of each see the other's requests, a release wakes the other, and a Redis restart is survived.
const redis = useRedisServer({ admin: true });

let sims: Upstream[] = [];
let pools: Pool[] = [];
let ledgers: RedisReplicaLedger[] = [];
let clients: Redis[] = [];

afterEach(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  for (const ledger of ledgers) ledger.close();
  await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  await Promise.all(sims.map((sim) => sim.close()));
  sims = [];
  pools = [];
  ledgers = [];
  clients = [];
});

/** A ledger on a client of its own; `failFast`: no offline queue, so commands fail while Redis is down. */
function ledgerOn(pool: string, leaseMs = 10_000, failFast = false): RedisReplicaLedger {
  const client = new Redis(
    redis.server.url,
    failFast ? { enableOfflineQueue: false, maxRetriesPerRequest: 0 } : {},
  );
  client.on("error", () => {});
  clients.push(client);
  const ledger = redisReplicaLedger(client, { prefix: "fleet", pool, leaseMs });
  ledgers.push(ledger);
  return ledger;
}

async function startSims(count: number, options: UpstreamOptions = {}): Promise<void> {
  sims = await startReplicas(count, {
    prefillMsPerToken: 0,
    parallel: 32,
    ttftMs: 20,
    tokenMs: 5,
    ...options,
  });
}

function instance(options: Omit<PoolOptions, "replicas">, limit: number): Pool {
  const pool = createPool({
    replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: limit })),
    health: false,
    signals: false,
    ...options,
  });
  pools.push(pool);
  return pool;
}

async function chat(pool: Pool, content: string, maxTokens = 4): Promise<number> {
  const response = await pool.fetch("/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "sim-model",
      messages: [{ role: "user", content }],
      max_tokens: maxTokens,
    }),
  });
  await response.text();
  return response.status;
}

/** One request after another from one instance. */
async function oneAtATime(pool: Pool, name: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push(await chat(pool, `${name}${i}`));
  return statuses;
}

const served = (): number[] => sims.map((sim) => sim.stats().served);
const inFlightAtSims = (): number => sims.reduce((sum, sim) => sum + sim.stats().inFlight, 0);

async function leasesInRedis(pool: string): Promise<number> {
  const keys = await redis.admin.keys(`fleet:{${pool}}:lease:*`);
  const now = Number((await redis.admin.time())[0]) * 1000;
  let live = 0;
  for (const key of keys) live += await redis.admin.zcount(key, `(${now - 1_000}`, "+inf");
  return live;
}

describe("the Redis ledger's snapshots", () => {
  it("reach every watcher: a granted take and a release publish them, a refused take does not", async () => {
    const mine = ledgerOn("snap");
    const theirs = ledgerOn("snap");
    const seen: { seq: number; counts: Readonly<Record<string, number>> }[] = [];
    let lost = 0;
    theirs.watch(["r0", "r1"], (snapshot) => {
      if (snapshot === undefined) lost += 1;
      else seen.push(snapshot);
    });
    await waitFor(async () => (await redis.admin.pubsub("NUMSUB", "fleet:{snap}:counts"))[1] === 1);
    await waitFor(() => seen.length === 1, 2_000, "the snapshot read when the subscription is ready");
    expect(seen.pop()!.counts).toEqual({ r0: 0, r1: 0 });
    const lease = await mine.take("r0", 1);
    await waitFor(() => seen.length === 1, 2_000, "the take's message");
    expect(seen[0]!.counts).toEqual({ r0: 1 }); // the replica it changed (the taker watches none)
    expect(await mine.take("r0", 1)).toBeNull();
    await mine.release(lease!);
    await waitFor(() => seen.length === 2, 2_000, "the release's message");
    expect(seen[1]!.counts).toEqual({ r0: 0 });
    expect(seen[1]!.seq).toBeGreaterThan(seen[0]!.seq);
    await sleep(100);
    expect(seen).toHaveLength(2); // the refused take published nothing
    expect(lost).toBe(0);

    // Restarted empty, Redis's sequence starts again from its clock: still above every earlier one.
    await redis.server.kill();
    await waitFor(() => lost > 0, 5_000, "the watcher to hear that Redis is gone");
    await redis.server.restart();
    await waitFor(() => seen.length > 2, 10_000, "a snapshot after the restart");
    expect(seen.at(-1)!.seq).toBeGreaterThan(seen[1]!.seq);
  });
});

describe("a pool's instances see each other's load through the Redis ledger", () => {
  // Ties go to the first replica (random 0): an instance that sees only its own load, idle between
  // requests, always picks r0, so two such instances pile onto r0 and leave r1 idle.
  const routing = () => leastLoaded({ random: () => 0 });

  it("without a shared ledger, least-loaded on each instance's own counts leaves a replica idle (the peer run)", async () => {
    await startSims(2);
    const a = instance({ routing: routing() }, 4);
    const b = instance({ routing: routing() }, 4);
    await Promise.all([oneAtATime(a, "a", 20), oneAtATime(b, "b", 20)]);
    expect(served()).toEqual([40, 0]);
    expect(sims[0]!.stats().maxInFlightSeen).toBe(2);
  });

  it("with it, least-loaded splits the load across replicas fleet-wide", async () => {
    await startSims(2);
    const a = instance({ routing: routing(), shared: { ledger: ledgerOn("even") } }, 4);
    const b = instance({ routing: routing(), shared: { ledger: ledgerOn("even") } }, 4);
    const statuses = await Promise.all([oneAtATime(a, "a", 20), oneAtATime(b, "b", 20)]);
    expect(statuses.flat()).toEqual(Array(40).fill(200));
    const [r0, r1] = served();
    expect(r0! + r1!).toBe(40);
    expect(Math.min(r0!, r1!)).toBeGreaterThanOrEqual(10); // even would be 20 each; the peer gives r1 none
    expect(await leasesInRedis("even")).toBe(0);
  });

  it("never puts more than a replica's limit on it, from both instances at once", async () => {
    await startSims(3);
    const a = instance({ routing: "least-loaded", shared: { ledger: ledgerOn("peak") } }, 2);
    const b = instance({ routing: "least-loaded", shared: { ledger: ledgerOn("peak") } }, 2);
    const burst = (pool: Pool, name: string) =>
      Promise.all(Array.from({ length: 30 }, (_, i) => chat(pool, `${name}${i}`)));
    const statuses = await Promise.all([burst(a, "a"), burst(b, "b")]);
    expect(statuses.flat()).toEqual(Array(60).fill(200));
    for (const sim of sims) expect(sim.stats().maxInFlightSeen).toBeLessThanOrEqual(2);
    expect(Math.min(...served())).toBeGreaterThan(0);
    expect(await leasesInRedis("peak")).toBe(0);
  });

  it("a release on one instance wakes a request waiting on the other, long before retryMs", async () => {
    await startSims(1, { tokenMs: 5 });
    const shared = (pool: string) => ({ ledger: ledgerOn(pool), retryMs: 5_000 });
    const a = instance({ shared: shared("wake") }, 1);
    const b = instance({ shared: shared("wake") }, 1);
    const holding = chat(a, "holds the only slot", 60); // about 0.3 s
    await waitFor(() => sims[0]!.stats().inFlight === 1, 5_000, "a's request to run");
    const started = performance.now();
    expect(await chat(b, "waits for it")).toBe(200);
    const waited = performance.now() - started;
    expect(await holding).toBe(200);
    expect(sims[0]!.stats()).toMatchObject({ maxInFlightSeen: 1, served: 2 });
    expect(waited).toBeLessThan(2_500); // the fallback poll would take 5 s
  });
});

describe("the Redis ledger killed and restarted empty while requests run", () => {
  it("counts every request in flight once again (held leases put back, unleased ones added), then holds the limit", async () => {
    await startSims(2, { tokenMs: 20 });
    // a's client queues commands while Redis is down (its takes are answered late, after the restart);
    // b's fails them at once (its requests are counted once Redis answers again).
    const shared = (failFast: boolean) => ({
      ledger: ledgerOn("restart", 1_500, failFast),
      timeoutMs: 200,
      retryMs: 200,
    });
    const a = instance({ routing: "least-loaded", shared: shared(false) }, 2);
    const b = instance({ routing: "least-loaded", shared: shared(true) }, 2);
    const long = (pool: Pool, name: string) => chat(pool, name, 200); // about 4 s
    await waitFor(() => clients.every((client) => client.status === "ready"), 5_000, "the clients");
    const before = [long(a, "a-before"), long(b, "b-before")];
    await waitFor(async () => (await leasesInRedis("restart")) === 2, 5_000, "two leases");

    await redis.server.kill(); // SIGKILL: every lease is lost with it
    const during = [long(a, "a-during"), long(b, "b-during")]; // sent without a lease
    await waitFor(() => inFlightAtSims() === 4, 5_000, "the requests sent while Redis is down");
    await redis.server.restart();

    // Each in-flight request is counted again, and only once: two put back by their instance's
    // heartbeat, two sent during the outage added as soon as Redis answers.
    await waitFor(async () => (await leasesInRedis("restart")) === 4, 5_000, "four leases");
    let most = 0;
    const sampling = (async () => {
      while (inFlightAtSims() > 0) {
        most = Math.max(most, await leasesInRedis("restart"));
        await sleep(20);
      }
    })();
    expect(await Promise.all([...before, ...during])).toEqual([200, 200, 200, 200]);
    await sampling;
    expect(most).toBe(4);
    // Given back, not left to expire (the lease lasts 1.5 s).
    await waitFor(async () => (await leasesInRedis("restart")) === 0, 1_000, "no lease left");

    for (const sim of sims) sim.resetStats();
    const burst = (pool: Pool, name: string) =>
      Promise.all(Array.from({ length: 12 }, (_, i) => chat(pool, `${name}${i}`, 8)));
    expect((await Promise.all([burst(a, "a"), burst(b, "b")])).flat()).toEqual(Array(24).fill(200));
    for (const sim of sims) expect(sim.stats().maxInFlightSeen).toBeLessThanOrEqual(2);
  });
});

// What a decision costs on the Node side of the Redis store: one instance (this process) with `loops`
// acquire/release loops on a redis-server of its own, global limit `limit` (half the loops by default,
// so about as many tickets wait as run, as in the 4-instance run), for `seconds`. Prints this process's
// CPU per decision (process.cpuUsage over the run; a decision is an enqueue or a release), Redis CPU
// per decision (INFO cpu), decisions per script call, and the p50 of a lone acquire on a free slot
// beside the p50 of a PING on the same redis-server (the round trip's floor) and the time inside Redis
// per script call meanwhile (INFO commandstats).
// The first round warms up; the medians of the others are printed last. Run it under `node --cpu-prof` for a profile of the instance.
// With --promises it counts the promises created per decision instead (async_hooks; the timings then mean nothing).
// Usage: node --conditions=source --import tsx bench/tools/redis-client.ts [--loops 128] [--limit 64] [--seconds 5] [--rounds 5] [--promises]
import { createHook } from "node:async_hooks";
import { parseArgs } from "node:util";
import { createScheduler } from "@llm-scheduler/core";
import { RedisStore } from "@llm-scheduler/redis";
import { startLocalRedis } from "@llm-scheduler/redis/local-server";
import { Redis } from "ioredis";
import { acquireTimes } from "../lib/timing.js";

const { values } = parseArgs({
  options: {
    loops: { type: "string", default: "128" },
    limit: { type: "string" },
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "5" },
    lone: { type: "string", default: "3000" },
    promises: { type: "boolean", default: false },
  },
});
const loops = Number(values.loops);
const limit = Number(values.limit ?? loops / 2);

async function redisCpu(admin: Redis): Promise<number> {
  const info = await admin.info("cpu");
  return Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
}

/** Script calls since the last RESETSTAT, and the µs spent inside them. */
async function calls(admin: Redis): Promise<[number, number]> {
  const stats = await admin.info("commandstats");
  const found = [...stats.matchAll(/cmdstat_(?:fcall|evalsha):calls=(\d+),usec=(\d+)/g)];
  return [found.reduce((s, m) => s + Number(m[1]), 0), found.reduce((s, m) => s + Number(m[2]), 0)];
}

let promises = 0;
/** With --promises: counts the promises created during the busy runs (slows them; the CPU figures then mean nothing). */
const promiseHook = createHook({
  init: (_id, type) => {
    if (type === "PROMISE") promises++;
  },
});

/** One busy run: µs of this process's CPU and of Redis CPU per decision, decisions per script call. */
async function busy(url: string, admin: Redis, round: number): Promise<number[]> {
  const store = new RedisStore({ url, prefix: `client${round}:`, leaseMs: 10_000 });
  const scheduler = createScheduler({ maxConcurrency: limit, store });
  await scheduler.run(() => {});
  await admin.config("RESETSTAT");
  const redisBefore = await redisCpu(admin);
  const cpuBefore = process.cpuUsage();
  const endAt = performance.now() + Number(values.seconds) * 1000;
  promises = 0;
  if (values.promises) promiseHook.enable();
  let cycles = 0;
  const loop = async (i: number): Promise<void> => {
    while (performance.now() < endAt) {
      const permit = await scheduler.acquire({ tenant: `t${i % 4}` });
      permit.release();
      cycles++;
    }
  };
  await Promise.all(Array.from({ length: loops }, (_, i) => loop(i)));
  promiseHook.disable();
  const cpu = process.cpuUsage(cpuBefore);
  const redis = (await redisCpu(admin)) - redisBefore;
  const [scriptCalls] = await calls(admin);
  await scheduler.close();
  await store.close();
  const decisions = 2 * cycles;
  if (values.promises) console.log(`promises per decision: ${(promises / decisions).toFixed(2)}`);
  return [
    (cpu.user + cpu.system) / decisions,
    (redis * 1e6) / decisions,
    decisions / Math.max(1, scriptCalls),
  ];
}

/** The p50 of a PING round trip on its own connection, ms: the floor under a lone acquire. */
async function ping(url: string, samples: number): Promise<number> {
  const client = new Redis(url);
  const times: number[] = [];
  for (let i = 0; i < samples + 200; i++) {
    const started = performance.now();
    await client.ping();
    if (i >= 200) times.push(performance.now() - started);
  }
  await client.quit();
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/**
 * The p50 of a lone acquire (then release) on a free slot, ms, and the µs inside Redis per script call
 * meanwhile (each acquire's call also carries the release before it).
 */
async function lone(url: string, admin: Redis, samples: number): Promise<[number, number]> {
  const store = new RedisStore({ url, prefix: `lone${Date.now()}:` });
  const scheduler = createScheduler({ maxConcurrency: 8, store });
  await scheduler.run(() => {});
  await admin.config("RESETSTAT");
  const times = await acquireTimes(scheduler, samples);
  const [scriptCalls, scriptUs] = await calls(admin);
  await scheduler.close();
  await store.close();
  times.sort((a, b) => a - b);
  console.log(
    `lone: ${(scriptCalls / (samples + 200)).toFixed(3)} script calls per acquire (warm-up included)`,
  );
  return [times[Math.floor(times.length / 2)]!, scriptUs / Math.max(1, scriptCalls)];
}

const redis = await startLocalRedis();
const admin = new Redis(redis.url);
const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
try {
  const rows: number[][] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    const [client, server, perCall] = await busy(redis.url, admin, round);
    const [p50, inside] = await lone(redis.url, admin, Number(values.lone));
    const floor = await ping(redis.url, Number(values.lone));
    if (round > 0) rows.push([client!, server!, p50 * 1000, floor * 1000, inside]); // round 0 warms up
    console.log(
      `round ${round}: client ${client!.toFixed(2)} µs/decision, redis ${server!.toFixed(2)} µs/decision, ` +
        `${perCall!.toFixed(1)} decisions/call, lone acquire p50 ${(p50 * 1000).toFixed(1)} µs (PING ${(floor * 1000).toFixed(1)} µs, inside Redis ${inside.toFixed(1)} µs per call)`,
    );
  }
  const [client, server, p50, floor, inside] = [0, 1, 2, 3, 4].map((i) => median(rows.map((row) => row[i]!)));
  console.log(
    `median after round 0: client ${client!.toFixed(2)} µs/decision, redis ${server!.toFixed(2)} µs/decision, ` +
      `lone acquire p50 ${p50!.toFixed(1)} µs (PING ${floor!.toFixed(1)} µs, inside Redis ${inside!.toFixed(1)} µs per call)`,
  );
} finally {
  await admin.quit();
  await redis.stop();
}

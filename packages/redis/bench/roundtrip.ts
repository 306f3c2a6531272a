/**
 * Redis store figures, standalone:
 *   1. acquire and release round trips on loopback, p50 / p99, against the in-memory store;
 *   2. aggregate decisions per second with 4 instances (4 processes, one Redis), and Redis CPU per decision.
 *
 *   tsx --conditions=source packages/redis/bench/roundtrip.ts [--seconds 5] [--instances 4]
 *
 * Starts its own redis-server on a free port unless REDIS_URL is set. A "decision" is one store script
 * call that decides something (an enqueue: grant, queue or refuse; a release: free and grant what fits).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { MemoryStore, type Store } from "@llm-scheduler/core/kit";
import { startLocalRedis } from "@llm-scheduler/redis/local-server";
import { Redis } from "ioredis";
import { RedisStore } from "../src/index.js";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    instances: { type: "string", default: "4" },
    loops: { type: "string", default: "128" },
    slots: { type: "string", default: "256" },
    samples: { type: "string", default: "5000" },
    worker: { type: "string" },
    url: { type: "string" },
    prefix: { type: "string" },
  },
});

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

const fmt = (ms: number): string => `${(ms * 1000).toFixed(1)} µs`;

/** Sequential acquire + release on a free slot: the acquire latency as the caller sees it. */
async function roundTrips(store: Store, samples: number): Promise<number[]> {
  const scheduler = createScheduler({ maxConcurrency: 8, store });
  const acquire: number[] = [];
  for (let i = 0; i < samples + 500; i++) {
    const started = performance.now();
    const permit = await scheduler.acquire();
    if (i >= 500) acquire.push(performance.now() - started);
    permit.release(); // the store's release is in flight while the next acquire goes out
  }
  await scheduler.close();
  return acquire.sort((a, b) => a - b);
}

/** The round trip of a store call: enqueue on a free slot (granted), then release, each awaited. */
async function storeCalls(store: Store, samples: number): Promise<{ enqueue: number[]; release: number[] }> {
  const scheduler = createScheduler({ maxConcurrency: 8 });
  let seq = 0;
  const ignore = (): void => {};
  await store.attach(
    { clock: scheduler.options.clock, grant: ignore, fail: ignore, revoke: ignore },
    scheduler.options,
  );
  const enqueue: number[] = [];
  const release: number[] = [];
  for (let i = 0; i < samples + 500; i++) {
    const ticket = {
      seq: ++seq,
      priority: "interactive",
      tenant: "t",
      cost: 1,
      retry: false,
      enqueuedAt: performance.timeOrigin + performance.now(),
      prev: null,
      next: null,
      olderPrev: null,
      olderNext: null,
    };
    const t0 = performance.now();
    await store.enqueue(ticket);
    const t1 = performance.now();
    await store.release(ticket);
    const t2 = performance.now();
    if (i >= 500) {
      enqueue.push(t1 - t0);
      release.push(t2 - t1);
    }
  }
  await store.detach();
  return { enqueue: enqueue.sort((a, b) => a - b), release: release.sort((a, b) => a - b) };
}

/** One instance of the throughput run: `loops` concurrent acquire/release loops for `seconds`. */
async function worker(
  url: string,
  prefix: string,
  seconds: number,
  loops: number,
  slots: number,
): Promise<void> {
  const store = new RedisStore({ url, prefix, leaseMs: 10_000 });
  const scheduler: Scheduler = createScheduler({
    maxConcurrency: slots,
    priorities: {
      interactive: { weight: 5, queueTimeoutMs: 60_000 },
      batch: { weight: 1, queueTimeoutMs: 60_000 },
    },
    store,
  });
  await new Promise((resolve) => setTimeout(resolve, 300)); // connected, subscribed
  let cycles = 0;
  const deadline = performance.now() + seconds * 1000;
  const loop = async (i: number): Promise<void> => {
    while (performance.now() < deadline) {
      const permit = await scheduler.acquire({
        priority: i % 4 === 0 ? "interactive" : "batch",
        tenant: `t${i % 8}`,
      });
      permit.release();
      cycles++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: loops }, (_, i) => loop(i)));
  const elapsed = (performance.now() - started) / 1000;
  await scheduler.close();
  await store.close();
  process.stdout.write(`${JSON.stringify({ cycles, elapsed })}\n`);
}

async function throughput(url: string, instances: number, seconds: number, loops: number, slots: number) {
  const admin = new Redis(url);
  const prefix = `bench${Date.now()}:`;
  await admin.config("RESETSTAT");
  const cpuBefore = await redisCpu(admin);
  const self = fileURLToPath(import.meta.url);
  const workerArgs = ["--worker", "1", "--url", url, "--prefix", prefix, "--seconds", String(seconds)];
  const sizing = ["--loops", String(loops), "--slots", String(slots)];
  const children: ChildProcess[] = Array.from({ length: instances }, () =>
    spawn(process.execPath, ["--conditions=source", "--import", "tsx", self, ...workerArgs, ...sizing], {
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
  const results = await Promise.all(
    children.map(async (child) => {
      let text = "";
      for await (const chunk of child.stdout!) text += String(chunk);
      return JSON.parse(text.trim().split("\n").at(-1)!) as { cycles: number; elapsed: number };
    }),
  );
  const cpuAfter = await redisCpu(admin);
  const stats = await admin.info("commandstats");
  // the store's calls: FCALL (Redis Functions), or EVALSHA where FUNCTION is refused
  const calls = [...stats.matchAll(/cmdstat_(?:fcall|evalsha):calls=(\d+)/g)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
  await admin.quit();
  const cycles = results.reduce((sum, r) => sum + r.cycles, 0);
  const elapsed = Math.max(...results.map((r) => r.elapsed));
  return {
    cyclesPerSecond: cycles / elapsed,
    decisionsPerSecond: (2 * cycles) / elapsed,
    scriptCallsPerSecond: calls / elapsed,
    redisCpuPerDecisionUs: ((cpuAfter - cpuBefore) * 1e6) / Math.max(1, 2 * cycles),
  };
}

async function redisCpu(client: Redis): Promise<number> {
  const info = await client.info("cpu");
  const user = Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1] ?? 0);
  const sys = Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1] ?? 0);
  return user + sys;
}

async function main(): Promise<void> {
  const seconds = Number(args.seconds);
  if (args.worker !== undefined) {
    await worker(args.url!, args.prefix!, seconds, Number(args.loops), Number(args.slots));
    return;
  }
  const samples = Number(args.samples);
  const redis = process.env.REDIS_URL === undefined ? await startLocalRedis() : undefined;
  const url = process.env.REDIS_URL ?? redis!.url;
  try {
    const memory = await roundTrips(new MemoryStore(), samples);
    const redisStore = new RedisStore({ url, prefix: `rt${Date.now()}:` });
    const shared = await roundTrips(redisStore, samples);
    await redisStore.close();
    const rawMemory = await storeCalls(new MemoryStore(), samples);
    const rawStore = new RedisStore({ url, prefix: `raw${Date.now()}:` });
    const raw = await storeCalls(rawStore, samples);
    await rawStore.close();

    const row = (name: string, m: number[], r: number[]) =>
      console.log(
        `${name.padEnd(34)} memory p50 ${fmt(quantile(m, 0.5)).padStart(9)} p99 ${fmt(quantile(m, 0.99)).padStart(9)}` +
          ` | redis p50 ${fmt(quantile(r, 0.5)).padStart(9)} p99 ${fmt(quantile(r, 0.99)).padStart(9)}` +
          ` | ratio p50 ${(quantile(r, 0.5) / quantile(m, 0.5)).toFixed(0)}x p99 ${(quantile(r, 0.99) / quantile(m, 0.99)).toFixed(0)}x`,
      );
    console.log(`Round trips on loopback (${samples} sequential samples each):`);
    row("scheduler.acquire() on a free slot", memory, shared);
    row("store.enqueue() (granted)", rawMemory.enqueue, raw.enqueue);
    row("store.release()", rawMemory.release, raw.release);

    const instances = Number(args.instances);
    const [loops, slots] = [Number(args.loops), Number(args.slots)];
    const result = await throughput(url, instances, seconds, loops, slots);
    console.log(
      `\n${instances} instances (processes), one Redis, ${seconds} s, ${loops} acquire/release loops each, ` +
        `global limit ${slots} (about ${instances * loops - slots} tickets waiting at any time):`,
    );
    console.log(`  acquire+release cycles/s      ${result.cyclesPerSecond.toFixed(0)}`);
    console.log(`  decisions/s (enqueue+release) ${result.decisionsPerSecond.toFixed(0)}  (goal >= 10000)`);
    console.log(`  script calls/s (all scripts)  ${result.scriptCallsPerSecond.toFixed(0)}`);
    console.log(`  Redis CPU per decision        ${result.redisCpuPerDecisionUs.toFixed(1)} µs`);
  } finally {
    await redis?.stop();
  }
}

await main();

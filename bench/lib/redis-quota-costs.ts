// What tenant quotas, the token budget and token fairness cost the Redis store, against the same
// store without them, in the same run: acquire latency and Redis CPU per script call (INFO cpu over
// INFO commandstats calls), sequential acquire/release on a free slot, 50 tenants.
import { createScheduler, type SchedulerOptions } from "@llm-scheduler/core";
import { RedisStore } from "@llm-scheduler/redis";
import { Redis } from "ioredis";
import { quantile } from "./stats.js";

export interface QuotaCost {
  readonly name: string;
  /** p50 of scheduler.acquire(), ms. */
  readonly p50: number;
  /** Redis CPU (user + system) per script call, µs: unlike wall time, not inflated by descheduling. */
  readonly cpuPerCall: number;
}

const QUOTAS: SchedulerOptions = {
  maxTokensInFlight: 1_000_000,
  fairness: "tokens",
  tenantDefaults: { maxConcurrency: 6, maxQueue: 2_000, tokensPerMinute: 1e9 },
};

async function measure(
  url: string,
  name: string,
  options: SchedulerOptions,
  samples: number,
): Promise<QuotaCost> {
  const store = new RedisStore({ url, prefix: `qc${name}${Date.now()}:` });
  const scheduler = createScheduler({ maxConcurrency: 8, ...options, store });
  const admin = new Redis(url);
  const times: number[] = [];
  try {
    for (let i = 0; i < 200; i++)
      (await scheduler.acquire({ tenant: `t${i % 50}`, tokens: 1_500 })).release();
    await admin.config("RESETSTAT");
    const cpuBefore = await redisCpuUs(admin);
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      const permit = await scheduler.acquire({ tenant: `t${i % 50}`, tokens: 1_500 });
      times.push(performance.now() - started);
      permit.release();
    }
    await scheduler.run(() => {}); // the last release has gone out
    const cpu = (await redisCpuUs(admin)) - cpuBefore;
    // the store's calls are FCALL (a function library) or, where FUNCTION is refused, EVALSHA
    const commandstats = await admin.info("commandstats");
    const calls = [...commandstats.matchAll(/cmdstat_(?:fcall|evalsha):calls=(\d+)/g)].reduce(
      (sum, match) => sum + Number(match[1]),
      0,
    );
    return { name, p50: quantile(times, 0.5), cpuPerCall: cpu / Math.max(1, calls) };
  } finally {
    await admin.quit();
    await scheduler.close();
    await store.close();
  }
}

async function redisCpuUs(admin: Redis): Promise<number> {
  const info = await admin.info("cpu");
  const field = (name: string): number => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field("used_cpu_user") + field("used_cpu_sys")) * 1e6;
}

/**
 * Without quotas and with them, alternated `rounds` times on the Redis at `url`; each configuration's
 * median round (by CPU per call).
 */
export async function quotaCosts(url: string, samples: number, rounds = 3): Promise<QuotaCost[]> {
  const plain: QuotaCost[] = [];
  const quotas: QuotaCost[] = [];
  for (let round = 0; round < rounds; round++) {
    plain.push(await measure(url, "plain", {}, samples));
    quotas.push(await measure(url, "quotas", QUOTAS, samples));
  }
  const median = (list: QuotaCost[]): QuotaCost =>
    [...list].sort((a, b) => a.cpuPerCall - b.cpuPerCall)[Math.floor(list.length / 2)]!;
  return [median(plain), median(quotas)];
}

// One gateway instance of a Redis fleet run: a scheduler on a RedisStore with `loops` acquire/release
// loops. It connects, waits until all <instances> are ready (the last one to be ready sets the common
// start, a CLOCK_MONOTONIC time, the same in every process of the host), runs for `seconds`, and hands
// back its cycles and when each task held its slot.
// Arguments: <url> <prefix> <limit> <loops> <holdMs> <instances> <seconds> <timesFile>; the start and
// end times go to <timesFile> as JSON (too many for the one result line on stdout).
import { writeFileSync } from "node:fs";
import { createScheduler } from "@llm-scheduler/core";
import { RedisStore } from "@llm-scheduler/redis";
import { Redis } from "ioredis";
import type { Probe } from "../lib/node-child.js";

/** What one instance hands back on stdout. */
export interface FleetWorkerResult {
  readonly loops: number;
  /** Acquire/release cycles that started and ended inside the window. */
  readonly cycles: number;
  /** How long this instance waited for the others to be ready, ms. */
  readonly waitedMs: number;
}

/** What one instance writes to its times file. */
export interface FleetWorkerTimes {
  /** Microseconds from the start: when each task got its slot, and when it gave it back. */
  readonly starts: number[];
  readonly ends: number[];
  /** The acquire latency of each cycle, µs. */
  readonly waits: number[];
}

const monotonicMs = (): number => Number(process.hrtime.bigint() / 1000n) / 1000;

/** Resolves with the common start once `instances` processes are ready (a barrier in Redis). */
async function commonStart(url: string, prefix: string, instances: number): Promise<number> {
  const redis = new Redis(url);
  try {
    if ((await redis.incr(`${prefix}bench:ready`)) === instances) {
      await redis.set(`${prefix}bench:go`, String(monotonicMs() + 300));
    }
    for (;;) {
      const go = await redis.get(`${prefix}bench:go`);
      if (go !== null) return Number(go);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await redis.quit();
  }
}

export const main: Probe = async ([url, prefix, limit, loops, holdMs, instances, seconds, timesFile]) => {
  const store = new RedisStore({ url: url!, prefix: prefix!, leaseMs: 10_000 });
  const scheduler = createScheduler({
    maxConcurrency: Number(limit),
    priorities: {
      interactive: { weight: 5, queueTimeoutMs: 60_000 },
      batch: { weight: 1, queueTimeoutMs: 60_000 },
    },
    store,
  });
  await scheduler.run(() => {}); // connected and configured
  const readyAt = monotonicMs();
  const startAt = await commonStart(url!, prefix!, Number(instances));
  const waitedMs = Math.max(0, startAt - readyAt);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - monotonicMs())));
  const endAt = startAt + Number(seconds) * 1000;
  const hold = Number(holdMs);
  const starts: number[] = [];
  const ends: number[] = [];
  const waits: number[] = [];
  const at = (): number => Math.round((monotonicMs() - startAt) * 1000);
  const loop = async (i: number): Promise<void> => {
    while (monotonicMs() < endAt) {
      const asked = at();
      const permit = await scheduler.acquire({
        priority: i % 4 === 0 ? "interactive" : "batch",
        tenant: `t${i % 4}`,
      });
      const started = at();
      if (hold > 0) await new Promise((resolve) => setTimeout(resolve, hold));
      const ended = at();
      permit.release();
      if (monotonicMs() > endAt) break;
      starts.push(started);
      ends.push(ended);
      waits.push(started - asked);
    }
  };
  await Promise.all(Array.from({ length: Number(loops) }, (_, i) => loop(i)));
  await scheduler.close();
  await store.close();
  const times: FleetWorkerTimes = { starts, ends, waits };
  writeFileSync(timesFile!, JSON.stringify(times));
  const result: FleetWorkerResult = { loops: Number(loops), cycles: starts.length, waitedMs };
  return result;
};

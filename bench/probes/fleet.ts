// One gateway instance of a Redis fleet run: a scheduler on a RedisStore with `loops` acquire/release
// loops. It connects, waits until all <instances> are ready (the last one to be ready sets the common
// start, a CLOCK_MONOTONIC time, the same in every process of the host), runs for `seconds`, and hands
// back its cycles and, for each ticket, when it was asked for, granted and released. A call that goes
// `commandTimeoutMs` without a reply makes the store count Redis as down and refuse acquires for a
// moment: the instance counts the refusals and asks again, so a slow machine slows the run, never ends it.
// Arguments: <url> <prefix> <limit> <loops> <holdMs> <instances> <seconds> <timesFile>; the start and
// end times go to <timesFile> as JSON (too many for the one result line on stdout).
import { writeFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createScheduler, ErrorCode, isSchedulerError } from "@llm-scheduler/core";
import { RedisStore } from "@llm-scheduler/redis";
import { Redis } from "ioredis";
import type { Probe } from "../lib/node-child.js";

/** What one instance hands back on stdout. */
export interface FleetWorkerResult {
  /** The store's instance id (its tickets are `<instanceId>:<seq>` in Redis). */
  readonly instanceId: string;
  readonly loops: number;
  /** Acquire/release cycles that started and ended inside the window. */
  readonly cycles: number;
  /** How long this instance waited for the others to be ready, ms. */
  readonly waitedMs: number;
  /** Acquires refused with STORE_UNAVAILABLE (a call went `commandTimeoutMs` without a reply); each was asked again. */
  readonly refused: number;
  /** The scheduler's `error` events: store calls that failed in the background. */
  readonly storeErrors: number;
  /** The mean delay of this process's event loop over the run, ms: how starved of CPU it was. */
  readonly loopDelayMs: number;
  /** This process's CPU time over the run (user and system, `process.cpuUsage`), µs. */
  readonly cpuUs: number;
}

/** What one instance writes to its times file: every ticket asked for while the window was open, µs from the start. */
export interface FleetWorkerTimes {
  readonly asked: number[];
  readonly granted: number[];
  readonly released: number[];
  /** The ticket's priority and tenant as one number: loop i asks as tenant `t${i % 4}`, interactive when i % 4 is 0. */
  readonly classes: number[];
}

/** How long a refused acquire waits before asking again, at most (the store says how long, usually). */
const RETRY_MS = 250;

/** How often the event loop's delay is sampled, ms. */
const DELAY_RESOLUTION_MS = 10;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

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
  let storeErrors = 0;
  scheduler.on("error", () => {
    storeErrors++;
  });
  let refused = 0;
  /** The call's answer, or undefined when the store refused it (counted, after waiting as it says). */
  const served = async <T>(call: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await call();
    } catch (error) {
      if (!isSchedulerError(error, ErrorCode.STORE_UNAVAILABLE)) throw error;
      refused++;
      await sleep(Math.min(RETRY_MS, error.retryAfterMs ?? RETRY_MS));
      return undefined;
    }
  };
  // connected and configured, however long Redis takes to answer
  while ((await served(() => scheduler.run(() => true))) === undefined);
  const readyAt = monotonicMs();
  const startAt = await commonStart(url!, prefix!, Number(instances));
  const waitedMs = Math.max(0, startAt - readyAt);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - monotonicMs())));
  const delay = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
  delay.enable();
  const cpuBefore = process.cpuUsage();
  const endAt = startAt + Number(seconds) * 1000;
  const hold = Number(holdMs);
  const times: FleetWorkerTimes = { asked: [], granted: [], released: [], classes: [] };
  const at = (): number => Math.round((monotonicMs() - startAt) * 1000);
  // One acquire/release after another; a refusal (the store counted Redis as down after a call without
  // a reply) is not a ticket: the loop waits as the store says and asks again.
  const loop = async (i: number): Promise<void> => {
    while (monotonicMs() < endAt) {
      const asked = at();
      const permit = await served(() =>
        scheduler.acquire({ priority: i % 4 === 0 ? "interactive" : "batch", tenant: `t${i % 4}` }),
      );
      if (permit === undefined) continue;
      times.asked.push(asked);
      times.classes.push(i % 4);
      times.granted.push(at());
      if (hold > 0) await sleep(hold);
      times.released.push(at());
      permit.release();
    }
  };
  await Promise.all(Array.from({ length: Number(loops) }, (_, i) => loop(i)));
  const cpu = process.cpuUsage(cpuBefore);
  delay.disable();
  await scheduler.close();
  await store.close();
  writeFileSync(timesFile!, JSON.stringify(times));
  const windowUs = Number(seconds) * 1e6;
  const cycles = times.released.filter((t) => t <= windowUs).length;
  // the histogram holds the intervals between its timer's ticks: the resolution and the delay after it
  const loopDelayMs = Math.max(0, delay.mean / 1e6 - DELAY_RESOLUTION_MS);
  const result: FleetWorkerResult = {
    instanceId: store.instanceId,
    loops: Number(loops),
    cycles,
    waitedMs,
    refused,
    storeErrors,
    loopDelayMs,
    cpuUs: cpu.user + cpu.system,
  };
  return result;
};

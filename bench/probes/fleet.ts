// One gateway instance of a Redis fleet run: a scheduler on a RedisStore with `loops` acquire/release
// loops. It connects, waits for the common start (a CLOCK_MONOTONIC time, the same in every process
// of the host), runs for `seconds`, and hands back its cycles and when each task held its slot.
// Arguments: <url> <prefix> <limit> <loops> <holdMs> <startAtMs> <seconds> <timesFile>; the start and
// end times go to <timesFile> as JSON (too many for the one result line on stdout).
import { writeFileSync } from "node:fs";
import { createScheduler } from "@llm-scheduler/core";
import { RedisStore } from "@llm-scheduler/redis";
import type { Probe } from "../lib/node-child.js";

/** What one instance hands back on stdout. */
export interface FleetWorkerResult {
  readonly loops: number;
  /** Acquire/release cycles that started and ended inside the window. */
  readonly cycles: number;
  /** How late the instance was ready for the common start, ms (0: in time). */
  readonly lateMs: number;
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

export const main: Probe = async ([url, prefix, limit, loops, holdMs, startAtMs, seconds, timesFile]) => {
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
  const startAt = Number(startAtMs);
  const lateMs = Math.max(0, monotonicMs() - startAt);
  if (lateMs === 0) await new Promise((resolve) => setTimeout(resolve, startAt - monotonicMs()));
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
  const result: FleetWorkerResult = { loops: Number(loops), cycles: starts.length, lateMs };
  return result;
};

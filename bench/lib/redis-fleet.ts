// A fleet of scheduler instances (one process each) on one Redis, for the redis and fleet parts.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalRedis } from "@llm-scheduler/redis/local-server";
import { Redis } from "ioredis";
import type { FleetWorkerResult, FleetWorkerTimes } from "../probes/fleet.js";
import { type FleetShares, fleetShares, sharesNoise } from "./fleet-shares.js";
import { runProbe } from "./node-child.js";
import { type StopWatching, watchGrants } from "./redis-grant-log.js";

export interface FleetOptions {
  /** Concurrent acquire/release loops of each instance (its demand); one process per entry. */
  readonly loops: readonly number[];
  /** The global limit, `maxConcurrency` of every instance. */
  readonly limit: number;
  /** How long each task holds its slot, ms (0: released at once). */
  readonly holdMs: number;
  readonly seconds: number;
  /** How the store's Lua reaches Redis: as Functions, or as scripts (a Redis that refuses FUNCTION). */
  readonly lua?: "functions" | "scripts";
  /**
   * Also read when Redis admitted and granted each ticket (MONITOR, see redis-grant-log.ts), for
   * `redisShares`; this slows Redis down. @default false
   */
  readonly redisSide?: boolean;
}

/** The arguments of a redis-server on which the store falls back to scripts (as on Redis 6). */
const NO_FUNCTIONS = ["--rename-command", "FUNCTION", ""];

export interface FleetResult {
  readonly instances: readonly FleetWorkerResult[];
  readonly decisionsPerSecond: number;
  readonly scriptCallsPerSecond: number;
  readonly redisCpuPerDecisionUs: number;
  /** Of that, time spent inside the store's calls (INFO commandstats, usec of FCALL and EVALSHA) per decision. */
  readonly scriptUsPerDecision: number;
  /**
   * The commands Redis ran (nearly all from inside the store's Lua), per decision counted, with their
   * own usec per call (INFO commandstats): what one decision costs before the Lua around it.
   */
  readonly commands: ReadonlyArray<{ command: string; perDecision: number; usPerCall: number }>;
  /** Most slots held at once across every instance (from the merged start and end times). */
  readonly mostHeld: number;
  /** Each instance's share of the cycles over its share of the loops: what it got of what it could offer. */
  readonly cyclesOverLoops: readonly number[];
  /** Each instance's share of the grants while every instance had a ticket waiting, over its share of the waiting. */
  readonly shares: FleetShares;
  /** How far those ratios move by chance (see `sharesNoise`). */
  readonly sharesNoise: number;
  /** The same as `shares`, from when Redis admitted and granted each ticket (with `redisSide`), in instance order. */
  readonly redisShares: FleetShares | undefined;
  /** Each instance's mean acquire latency, µs. */
  readonly meanWaitUs: readonly number[];
  /** Acquires refused with STORE_UNAVAILABLE and store errors, over every instance. */
  readonly refused: number;
  readonly storeErrors: number;
  readonly p50WaitUs: number;
  /** How long the first instance ready waited for the last one: the processes' start-up spread. */
  readonly startSpreadMs: number;
}

async function redisCpu(client: Redis): Promise<number> {
  const info = await client.info("cpu");
  const user = Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1] ?? 0);
  const sys = Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1] ?? 0);
  return user + sys;
}

/** Most slots held at once: +1 at each grant, -1 at each release, a release first when both fall together. */
function mostHeld(results: readonly FleetWorkerTimes[]): number {
  const events = results.flatMap((r) => [
    ...r.granted.map((t) => t * 2 + 1),
    ...r.released.map((t) => t * 2),
  ]);
  events.sort((a, b) => a - b);
  let held = 0;
  let most = 0;
  for (const event of events) {
    held += event % 2 === 1 ? 1 : -1;
    most = Math.max(most, held);
  }
  return most;
}

/** Redis's view of the shares (see redis-grant-log.ts), the instances in the order of `instances`. */
function redisShares(
  seen: Awaited<ReturnType<StopWatching>>,
  instances: readonly FleetWorkerResult[],
): FleetShares {
  const tickets = instances.map(
    (r) => seen.tickets[seen.instances.indexOf(r.instanceId)] ?? { asked: [], granted: [] },
  );
  const end = Math.max(...tickets.flatMap((t) => [...t.asked, ...t.granted])) + 1;
  return fleetShares(tickets, end);
}

/**
 * Starts a redis-server of its own, runs one process per entry of `loops` on it, all starting at one
 * time once every one is ready, and measures decisions per second (enqueues and releases), Redis CPU per decision (INFO cpu
 * over the run), script calls, the most slots held at once, and each instance's share of the grants
 * (see fleet-shares.ts).
 */
export async function runFleet(options: FleetOptions): Promise<FleetResult> {
  const redis = await startLocalRedis(options.lua === "scripts" ? NO_FUNCTIONS : []);
  const admin = new Redis(redis.url);
  const dir = mkdtempSync(join(tmpdir(), "llm-fleet-"));
  try {
    const prefix = `fleet${Date.now()}:`;
    await admin.config("RESETSTAT");
    const cpuBefore = await redisCpu(admin);
    const watching = options.redisSide === true ? await watchGrants(redis.url, prefix) : undefined;
    const instances = await Promise.all(
      options.loops.map((loops, i) =>
        runProbe<FleetWorkerResult>("fleet", [
          redis.url,
          prefix,
          String(options.limit),
          String(loops),
          String(options.holdMs),
          String(options.loops.length),
          String(options.seconds),
          join(dir, `${i}.json`),
        ]),
      ),
    );
    const cpu = (await redisCpu(admin)) - cpuBefore;
    const redisSide = await watching?.();
    const commandstats = await admin.info("commandstats");
    const stats = [...commandstats.matchAll(/cmdstat_(?:fcall|evalsha):calls=(\d+),usec=(\d+)/g)];
    const calls = stats.reduce((sum, match) => sum + Number(match[1]), 0);
    const scriptUs = stats.reduce((sum, match) => sum + Number(match[2]), 0);
    const cycles = instances.reduce((sum, r) => sum + r.cycles, 0);
    const demand = instances.reduce((sum, r) => sum + r.loops, 0);
    const times = instances.map(
      (_, i) => JSON.parse(readFileSync(join(dir, `${i}.json`), "utf8")) as FleetWorkerTimes,
    );
    const waitsOf = (r: FleetWorkerTimes) => r.granted.map((t, k) => t - r.asked[k]!);
    const waits = times.flatMap(waitsOf).sort((a, b) => a - b);
    const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
    const decisions = Math.max(1, 2 * cycles);
    return {
      commands: [...commandstats.matchAll(/cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/g)]
        .filter(
          (match) => !["fcall", "evalsha", "info", "config|resetstat", "client|setname"].includes(match[1]!),
        )
        .map((match) => ({
          command: match[1]!,
          perDecision: Number(match[2]) / decisions,
          usPerCall: Number(match[3]) / Math.max(1, Number(match[2])),
        }))
        .sort((a, b) => b.perDecision - a.perDecision),
      instances,
      decisionsPerSecond: (2 * cycles) / options.seconds,
      scriptCallsPerSecond: calls / options.seconds,
      redisCpuPerDecisionUs: (cpu * 1e6) / Math.max(1, 2 * cycles),
      scriptUsPerDecision: scriptUs / Math.max(1, 2 * cycles),
      mostHeld: mostHeld(times),
      cyclesOverLoops: instances.map((r) => r.cycles / Math.max(1, cycles) / (r.loops / demand)),
      shares: fleetShares(times, options.seconds * 1e6),
      sharesNoise: sharesNoise(times, options.seconds * 1e6),
      redisShares: redisSide && redisShares(redisSide, instances),
      meanWaitUs: times.map((r) => sum(waitsOf(r)) / Math.max(1, r.granted.length)),
      refused: sum(instances.map((r) => r.refused)),
      storeErrors: sum(instances.map((r) => r.storeErrors)),
      p50WaitUs: waits[Math.floor(waits.length / 2)] ?? Number.NaN,
      startSpreadMs: Math.max(...instances.map((r) => r.waitedMs)),
    };
  } finally {
    await admin.quit();
    await redis.stop();
    if (process.env.KEEP === undefined) rmSync(dir, { recursive: true, force: true });
    else console.log("kept", dir);
  }
}

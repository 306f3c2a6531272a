// The steady state of the 4-instance run, without the Node processes around it: one instance calls the
// store's Function library directly, each call releasing 32 tickets and enqueuing 32 (so every release
// grants a waiting ticket), with 32 slots held and about 450 tickets waiting over 4 tenants.
// Used by bench/tools/redis-steady.ts (CPU time) and bench/tools/redis-ir.ts (instruction counts).
import type * as layoutModule from "@llm-scheduler/redis/layout";
import type { Redis } from "ioredis";

/** What the load needs of a checkout's `@llm-scheduler/redis/layout`. */
export type Layout = Pick<typeof layoutModule, "functionLibrary" | "fixedKeys" | "keyList">;

const BATCH = 32;
const WAITING = 450;
const TENANTS = ["t1", "t2", "t3", "t4"];
const CONFIG = JSON.stringify({
  ...{ bk: "0", td: "-1 -1 -1 -1", mt: -1, fa: "0", ow: 1, tq: {}, max: BATCH, mq: -1 },
  p: [{ n: "default", w: 1, r: 0, m: BATCH, q: -1, a: -1 }],
});

export interface SteadyLoad {
  /** Makes `calls` step calls, each releasing 32 tickets and enqueuing 32. */
  run(calls: number): Promise<void>;
  /** The decisions (enqueues and releases) in `calls` step calls. */
  decisions(calls: number): number;
}

/** Loads `layout`'s library, configures `prefix` and queues the waiting tickets. */
export async function steadyLoad(redis: Redis, layout: Layout, prefix: string): Promise<SteadyLoad> {
  const { source, functions } = layout.functionLibrary();
  await redis.call("FUNCTION", "LOAD", "REPLACE", source);
  const keys = layout.keyList(layout.fixedKeys(prefix));
  const call = (op: string, ...args: Array<string | number>) =>
    redis.fcall(functions[op]!, keys.length, ...keys, prefix, "b", "", ...args) as Promise<unknown[]>;
  await call("configure", CONFIG, 30_000, "", "0", "1", "0");
  let seq = 0;
  const running: string[] = [];
  /** Enqueues `count` tickets after releasing `released` in one step call; remembers what was granted. */
  const step = async (released: string[], count: number): Promise<void> => {
    const ids = Array.from({ length: count }, () => `b:${++seq}`);
    const tickets = ids.flatMap((id, i) => [id, "default", TENANTS[(seq + i) % 4]!, 1, 0, "0", "", 0]);
    const reply = await call("step", 30_000, released.length, 0, 0, ...released, ...tickets);
    running.push(...(reply[2] as string[]));
    for (const [i, status] of (reply[3] as number[]).entries()) if (status === 1) running.push(ids[i]!);
  };
  await step([], WAITING);
  return {
    async run(calls) {
      for (let i = 0; i < calls; i++) await step(running.splice(0, BATCH), BATCH);
    },
    decisions: (calls) => calls * 2 * BATCH,
  };
}

/** Decisions per second (one client, calls in sequence) and Redis CPU per decision (µs, INFO cpu). */
export interface SteadyFigures {
  readonly decisionsPerSecond: number;
  readonly cpuPerDecisionUs: number;
}

async function cpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info("cpu");
  return Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
}

/** Runs `calls` calls of `load` and measures them. */
export async function measureSteady(redis: Redis, load: SteadyLoad, calls: number): Promise<SteadyFigures> {
  const cpuBefore = await cpuSeconds(redis);
  const started = performance.now();
  await load.run(calls);
  const seconds = (performance.now() - started) / 1000;
  const cpu = (await cpuSeconds(redis)) - cpuBefore;
  const decisions = load.decisions(calls);
  return { decisionsPerSecond: decisions / seconds, cpuPerDecisionUs: (cpu * 1e6) / decisions };
}

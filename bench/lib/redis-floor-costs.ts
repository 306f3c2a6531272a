// The store beside the floor in one run: the steady load (redis-steady-load.ts) on the store's
// Function library and on the floor (redis-floor.ts), alternated, one client on one redis-server.
import { fixedKeys, functionLibrary, keyList } from "@llm-scheduler/redis/layout";
import { Redis } from "ioredis";
import { floorLoad } from "./redis-floor.js";
import { measureSteady, type SteadyFigures, steadyLoad } from "./redis-steady-load.js";

export interface FloorCosts {
  readonly store: SteadyFigures;
  readonly floor: SteadyFigures;
}

const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

/** Medians of `rounds` alternated runs of `calls` steady calls each, on the Redis at `url`. */
export async function floorCosts(url: string, calls: number, rounds: number): Promise<FloorCosts> {
  const redis = new Redis(url);
  const layout = { fixedKeys, functionLibrary, keyList };
  const runs: { store: SteadyFigures[]; floor: SteadyFigures[] } = { store: [], floor: [] };
  try {
    for (let round = 0; round < rounds; round++) {
      const stamp = `${Date.now()}-${round}`;
      runs.store.push(await measureSteady(redis, await steadyLoad(redis, layout, `steady${stamp}:`), calls));
      runs.floor.push(await measureSteady(redis, await floorLoad(redis, `floor${stamp}:`), calls));
    }
  } finally {
    await redis.quit();
  }
  const medians = (list: SteadyFigures[]): SteadyFigures => ({
    decisionsPerSecond: median(list.map((f) => f.decisionsPerSecond)),
    cpuPerDecisionUs: median(list.map((f) => f.cpuPerDecisionUs)),
  });
  return { store: medians(runs.store), floor: medians(runs.floor) };
}

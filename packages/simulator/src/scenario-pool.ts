import { createScheduler, SchedulerError } from "@llm-scheduler/core";
import { resolveEngineLoad, resolveSpeed } from "@llm-scheduler/pool";
import { filled } from "./fields.js";
import {
  type ResolvedPool,
  type ResolvedPoolAdaptive,
  type ResolvedReplica,
  type ScenarioPool,
  type ScenarioPoolAdaptive,
  SECTIONS,
} from "./scenario.js";
import { invalidField } from "./scenario-error.js";

/** Reads `pool.adaptive` (its numbers checked); the tunables are checked by core, the engine feed by the pool. */
function adaptiveOf(
  given: ScenarioPoolAdaptive | undefined,
  replicas: readonly ResolvedReplica[],
): ResolvedPoolAdaptive | undefined {
  if (given === undefined) return undefined;
  const highest = Math.max(...replicas.map((replica) => replica.limit));
  const min = given.min ?? 1;
  const max = given.max ?? Math.max(min, 2 * highest);
  if (max < min) throw invalidField("pool.adaptive.max", `from ${min} to 100000`, max);
  for (const replica of replicas) {
    if (replica.limit < min || replica.limit > max) {
      throw invalidField(`pool.replicas.${replica.id}.limit`, `from ${min} to ${max}`, replica.limit);
    }
  }
  const tunables = given.tunables ?? {};
  try {
    void createScheduler({ maxConcurrency: { initial: min, min, max }, adaptive: tunables }).close();
  } catch (error) {
    if (!(error instanceof SchedulerError)) throw error;
    throw invalidField("pool.adaptive.tunables", `core's \`adaptive\` options (${error.message})`, tunables);
  }
  let engine: ResolvedPoolAdaptive["engine"];
  try {
    engine = resolveEngineLoad("pool.adaptive.engine", given.engine);
  } catch (error) {
    if (!(error instanceof SchedulerError)) throw error;
    throw invalidField(
      "pool.adaptive.engine",
      "`{ maxWaiting?, maxKvCacheUsage? }` or `false`",
      given.engine,
    );
  }
  return { min, max, scrapeMs: given.scrapeMs ?? 1_000, engine, tunables };
}

/**
 * Reads `pool` (checked): replicas behind a router; `undefined` when the scenario has none. A replica's
 * `parallel` defaults to `upstream.parallel`, its `limit` to its `parallel`, its ids must be unique.
 */
export function poolOf(given: ScenarioPool | undefined, parallel: number): ResolvedPool | undefined {
  if (given === undefined) return undefined;
  const { replicas: count, cacheTokens, adaptive, speed, ...pool } = filled(SECTIONS.POOL, given);
  const list = typeof count === "number" ? Array.from({ length: count }, () => ({})) : count;
  const seen = new Set<string>();
  const replicas = list.map((given, index): ResolvedReplica => {
    const replica = filled(SECTIONS.REPLICA, given);
    const id = replica.id ?? `r${index}`;
    if (seen.has(id)) throw invalidField(`pool.replicas[${index}].id`, "unique", id);
    seen.add(id);
    const sequences = replica.parallel ?? parallel;
    const limit = replica.limit ?? sequences;
    return {
      id,
      parallel: sequences,
      limit,
      speed: replica.speed,
      cacheTokens: replica.cacheTokens ?? cacheTokens,
    };
  });
  return {
    ...pool,
    replicas,
    adaptive: adaptiveOf(adaptive, replicas),
    speed: resolveSpeed("pool.speed", speed),
  };
}

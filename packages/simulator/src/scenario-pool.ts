import { invalidOption } from "@llm-scheduler/core/kit";
import { resolveEngineLoad, resolveSpeed } from "@llm-scheduler/pool";
import { checked } from "./fields.js";
import {
  POOL,
  POOL_ADAPTIVE,
  REPLICA,
  type ResolvedPool,
  type ResolvedPoolAdaptive,
  type ResolvedReplica,
  type ScenarioPool,
} from "./scenario.js";

/** `pool.adaptive`: `max` defaults to twice the highest replica limit, and every replica's limit lies within. */
function adaptiveOf(
  given: ScenarioPool["adaptive"],
  replicas: readonly ResolvedReplica[],
): ResolvedPoolAdaptive | undefined {
  if (given === undefined) return undefined;
  const {
    min,
    max = Math.max(min, 2 * Math.max(...replicas.map((r) => r.limit))),
    ...rest
  } = checked(POOL_ADAPTIVE, given);
  if (max < min) throw invalidOption("pool.adaptive.max", `from ${min} to 100000`, max);
  for (const replica of replicas) {
    if (replica.limit < min || replica.limit > max) {
      throw invalidOption(`pool.replicas.${replica.id}.limit`, `from ${min} to ${max}`, replica.limit);
    }
  }
  return { ...rest, min, max, engine: resolveEngineLoad("pool.adaptive.engine", rest.engine) };
}

/**
 * Reads `pool` (checked): replicas behind a router; `undefined` when the scenario has none. A replica's
 * `parallel` defaults to `upstream.parallel`, its `limit` to its `parallel`, its ids must be unique.
 */
export function poolOf(given: ScenarioPool | undefined, parallel: number): ResolvedPool | undefined {
  if (given === undefined) return undefined;
  const { replicas: count, cacheTokens, adaptive, speed, ...pool } = checked(POOL, given);
  const list = typeof count === "number" ? Array.from({ length: count }, () => ({})) : count;
  const seen = new Set<string>();
  const replicas = list.map((given, index): ResolvedReplica => {
    const replica = checked(REPLICA, given);
    const id = replica.id ?? `r${index}`;
    if (seen.has(id)) throw invalidOption(`pool.replicas[${index}].id`, "unique", id);
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

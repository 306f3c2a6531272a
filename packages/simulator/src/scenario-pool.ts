import { filled } from "./fields.js";
import { type ResolvedPool, type ResolvedReplica, type ScenarioPool, SECTIONS } from "./scenario.js";
import { invalidField } from "./scenario-error.js";

/**
 * Reads `pool` (checked): replicas behind a router; `undefined` when the scenario has none. A replica's
 * `parallel` defaults to `upstream.parallel`, its `limit` to its `parallel`, its ids must be unique.
 */
export function poolOf(given: ScenarioPool | undefined, parallel: number): ResolvedPool | undefined {
  if (given === undefined) return undefined;
  const { replicas: count, cacheTokens, ...pool } = filled(SECTIONS.POOL, given);
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
  return { ...pool, replicas };
}

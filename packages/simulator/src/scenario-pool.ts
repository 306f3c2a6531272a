import { ROUTINGS, type Routing } from "@llm-scheduler/pool";
import { numberAt, objectAt, stringAt } from "./fields.js";
import type { ResolvedPool, ResolvedReplica, ScenarioSystemPrompts } from "./scenario.js";
import { invalidField } from "./scenario-error.js";

const POOL_KEYS = ["routing", "loadFactor", "virtualNodes", "blockTokens", "cacheTokens", "replicas"];
const REPLICA_KEYS = ["id", "parallel", "limit", "speed", "cacheTokens"];
const SLOTS = { min: 1, integer: true, max: 100_000 } as const;
const TOKENS = { min: 0, integer: true, max: 10_000_000 } as const;
const MAX_REPLICAS = 1_000;

function routingAt(value: unknown): Routing {
  const routing = stringAt("pool.routing", value, "prefix");
  if (!(ROUTINGS as readonly string[]).includes(routing)) {
    throw invalidField("pool.routing", `one of ${ROUTINGS.map((name) => `"${name}"`).join(", ")}`, routing);
  }
  return routing as Routing;
}

function replicasAt(value: unknown, parallel: number, cacheTokens: number): ResolvedReplica[] {
  if (typeof value === "number") {
    const count = numberAt("pool.replicas", value, 1, { min: 1, integer: true, max: MAX_REPLICAS });
    return Array.from({ length: count }, (_, index) => ({
      id: `r${index}`,
      parallel,
      limit: parallel,
      speed: 1,
      cacheTokens,
    }));
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_REPLICAS) {
    throw invalidField("pool.replicas", `a number or an array of 1 to ${MAX_REPLICAS} replicas`, value);
  }
  const seen = new Set<string>();
  return value.map((entry: unknown, index) => {
    const path = `pool.replicas[${index}]`;
    const raw = objectAt(path, entry, REPLICA_KEYS);
    const id = stringAt(`${path}.id`, raw.id, `r${index}`);
    if (seen.has(id)) throw invalidField(`${path}.id`, "unique", id);
    seen.add(id);
    const sequences = numberAt(`${path}.parallel`, raw.parallel, parallel, SLOTS);
    return {
      id,
      parallel: sequences,
      limit: numberAt(`${path}.limit`, raw.limit, sequences, SLOTS),
      speed: numberAt(`${path}.speed`, raw.speed, 1, { min: 0, exclusive: true, max: 100 }),
      cacheTokens: numberAt(`${path}.cacheTokens`, raw.cacheTokens, cacheTokens, TOKENS),
    };
  });
}

/**
 * Reads `pool`: replicas behind a router; `undefined` when the scenario has none. A replica's `parallel`
 * defaults to `upstream.parallel`, its `limit` to its `parallel`.
 */
export function poolAt(value: unknown, parallel: number, hasCapacity: boolean): ResolvedPool | undefined {
  if (value === undefined) return undefined;
  const raw = objectAt("pool", value, POOL_KEYS);
  if (hasCapacity) throw invalidField("pool", "left out when `upstream.capacity` is given", "a pool");
  if (raw.replicas === undefined) throw invalidField("pool.replicas", "a number or an array", raw.replicas);
  const cacheTokens = numberAt("pool.cacheTokens", raw.cacheTokens, 0, TOKENS);
  return {
    routing: routingAt(raw.routing),
    loadFactor: numberAt("pool.loadFactor", raw.loadFactor, 1.25, { min: 1, exclusive: true, max: 100 }),
    virtualNodes: numberAt("pool.virtualNodes", raw.virtualNodes, 100, { min: 1, integer: true, max: 4096 }),
    blockTokens: numberAt("pool.blockTokens", raw.blockTokens, 16, { min: 1, integer: true, max: 1024 }),
    replicas: replicasAt(raw.replicas, parallel, cacheTokens),
  };
}

/** Reads `chat.systemPrompts`; `null` when chat requests share no prefix. */
export function systemPromptsAt(value: unknown): ScenarioSystemPrompts | null {
  if (value === undefined) return null;
  const raw = objectAt("chat.systemPrompts", value, ["count", "tokens"]);
  if (raw.count === undefined) throw invalidField("chat.systemPrompts.count", "an integer >= 1", raw.count);
  if (raw.tokens === undefined)
    throw invalidField("chat.systemPrompts.tokens", "an integer >= 1", raw.tokens);
  return {
    count: numberAt("chat.systemPrompts.count", raw.count, 1, { min: 1, integer: true, max: 10_000_000 }),
    tokens: numberAt("chat.systemPrompts.tokens", raw.tokens, 1, { ...TOKENS, min: 1 }),
  };
}

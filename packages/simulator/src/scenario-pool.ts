import { createScheduler, SchedulerError } from "@llm-scheduler/core";
import { ROUTINGS, type Routing, resolveEngineLoad, resolveSpeed } from "@llm-scheduler/pool";
import { numberAt, objectAt, stringAt } from "./fields.js";
import type {
  ResolvedPool,
  ResolvedPoolAdaptive,
  ResolvedReplica,
  ScenarioPoolAdaptive,
  ScenarioSystemPrompts,
} from "./scenario.js";
import { invalidField } from "./scenario-error.js";

const POOL_KEYS = [
  "routing",
  "loadFactor",
  "virtualNodes",
  "blockTokens",
  "cacheTokens",
  "replicas",
  "adaptive",
  "speed",
];
const ADAPTIVE_KEYS = ["min", "max", "scrapeMs", "engine", "tunables"];
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

/** Reads `pool.adaptive`; the range and tunables are checked by core, the engine feed by the pool. */
function adaptiveAt(value: unknown, replicas: readonly ResolvedReplica[]): ResolvedPoolAdaptive | undefined {
  if (value === undefined) return undefined;
  const raw = objectAt("pool.adaptive", value, ADAPTIVE_KEYS) as ScenarioPoolAdaptive;
  const highest = Math.max(...replicas.map((replica) => replica.limit));
  const min = numberAt("pool.adaptive.min", raw.min, 1, SLOTS);
  const max = numberAt("pool.adaptive.max", raw.max, Math.max(min, 2 * highest), { ...SLOTS, min });
  const tunables = raw.tunables ?? {};
  for (const replica of replicas) {
    if (replica.limit < min || replica.limit > max) {
      throw invalidField(`pool.replicas.${replica.id}.limit`, `from ${min} to ${max}`, replica.limit);
    }
  }
  try {
    void createScheduler({ maxConcurrency: { initial: min, min, max }, adaptive: tunables }).close();
  } catch (error) {
    if (!(error instanceof SchedulerError)) throw error;
    throw invalidField("pool.adaptive.tunables", `core's \`adaptive\` options (${error.message})`, tunables);
  }
  let engine: ResolvedPoolAdaptive["engine"];
  try {
    engine = resolveEngineLoad("pool.adaptive.engine", raw.engine);
  } catch (error) {
    if (!(error instanceof SchedulerError)) throw error;
    throw invalidField("pool.adaptive.engine", "`{ maxWaiting?, maxKvCacheUsage? }` or `false`", raw.engine);
  }
  const scrapeMs = numberAt("pool.adaptive.scrapeMs", raw.scrapeMs, 1_000, { min: 10, max: 3_600_000 });
  return { min, max, scrapeMs, engine, tunables };
}

/** Reads `pool.speed`, checked as the pool's `speed` option. */
function speedAt(value: unknown): ResolvedPool["speed"] {
  try {
    return resolveSpeed("pool.speed", value);
  } catch (error) {
    if (!(error instanceof SchedulerError)) throw error;
    throw invalidField("pool.speed", "`{ halfLife?, minFactor?, minSampleMs? }` or `false`", value);
  }
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
  const replicas = replicasAt(raw.replicas, parallel, cacheTokens);
  return {
    routing: routingAt(raw.routing),
    loadFactor: numberAt("pool.loadFactor", raw.loadFactor, 1.25, { min: 1, exclusive: true, max: 100 }),
    virtualNodes: numberAt("pool.virtualNodes", raw.virtualNodes, 100, { min: 1, integer: true, max: 4096 }),
    blockTokens: numberAt("pool.blockTokens", raw.blockTokens, 16, { min: 1, integer: true, max: 1024 }),
    replicas,
    adaptive: adaptiveAt(raw.adaptive, replicas),
    speed: speedAt(raw.speed),
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

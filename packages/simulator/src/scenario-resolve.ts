import { MAX_ITEMS } from "@llm-scheduler/batches";
import { integerIn, invalidOption, object } from "@llm-scheduler/core/kit";
import { resolveEngineLoad, resolveSpeed } from "@llm-scheduler/pool";
import { LATENCY_SCHEMA } from "@llm-scheduler/upstream-sim";
import { Capacity } from "./capacity.js";
import { checked } from "./fields.js";
import {
  BATCH,
  BATCH_TENANT,
  CHAT,
  GOAL,
  JOBS,
  POOL,
  POOL_ADAPTIVE,
  REPLICA,
  SCENARIO,
  type Scenario,
  type ScenarioBatch,
  type ScenarioChat,
  type ScenarioGateway,
  type ScenarioPool,
  type ScenarioUpstream,
} from "./scenario.js";
import { asScenarioError, ScenarioError } from "./scenario-error.js";
import { schedulerOptionsAt } from "./scenario-scheduler.js";

/** More requests than this would not fit in memory comfortably; split the scenario instead. */
const MAX_REQUESTS = 5_000_000;

const SCENARIO_NODE = object(SCENARIO, { doc: "" });

/** `chat`; with a rate schedule, `ratePerSec` is the mean of its rates. */
function resolveChat(given: ScenarioChat = {}) {
  const { rateSchedule, systemPrompts, ...chat } = checked(CHAT, given);
  if (rateSchedule !== undefined && given.ratePerSec !== undefined) {
    throw invalidOption("chat.ratePerSec", "left out when `chat.rateSchedule` is given", given.ratePerSec);
  }
  const rates = rateSchedule?.ratesPerSec;
  const ratePerSec =
    rates === undefined ? chat.ratePerSec : rates.reduce((sum, r) => sum + r, 0) / rates.length;
  return { ...chat, ratePerSec, rateSchedule: rateSchedule ?? null, systemPrompts: systemPrompts ?? null };
}

/** `batch.jobs` (batches with windows): not the chat tenant's, and no batch over the batch layer's limit. */
function resolveJobs(given: ScenarioBatch["jobs"], chatTenant: string) {
  if (given === undefined) return null;
  const jobs = checked(JOBS, given);
  const clash = jobs.tenants.indexOf(chatTenant);
  if (clash >= 0) throw invalidOption(`batch.jobs.tenants[${clash}]`, "not the chat tenant", chatTenant);
  if (jobs.items.max > MAX_ITEMS)
    throw invalidOption("batch.jobs.items.max", `at most ${MAX_ITEMS}`, jobs.items.max);
  return jobs;
}

/** `batch`: tenant names unique and not chat's; `jobs` `null` when left out. */
function resolveBatch(given: ScenarioBatch = {}, chatTenant: string) {
  const batch = checked(BATCH, given);
  const seen = new Set([chatTenant]);
  const tenants = batch.tenants.map((entry, index) => {
    const tenant = checked(BATCH_TENANT, entry);
    if (seen.has(tenant.name)) {
      throw invalidOption(`batch.tenants[${index}].name`, "unique (and not the chat tenant)", tenant.name);
    }
    seen.add(tenant.name);
    return tenant;
  });
  return { ...batch, tenants, jobs: resolveJobs(batch.jobs, chatTenant) };
}

/** `upstream.capacity` with its defaults; the hard limit is at least the knee. */
function capacityOf(given: ScenarioUpstream["capacity"]) {
  if (given === undefined) return undefined;
  const { options } = new Capacity(given);
  integerIn("upstream.capacity.hardLimit", options.hardLimit, options.knee, 100_000);
  return options;
}

/** `pool.adaptive`: `max` defaults to twice the highest replica limit, and every replica's limit lies within. */
function adaptiveOf(
  given: ScenarioPool["adaptive"],
  replicas: readonly { readonly id: string; readonly limit: number }[],
) {
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
 * `pool`: replicas behind a router; `undefined` when the scenario has none. A replica's `id` is
 * `r<index>` unless given (ids unique), its `parallel` the upstream's, its `limit` its `parallel`.
 */
function poolOf(given: ScenarioPool | undefined, parallel: number) {
  if (given === undefined) return undefined;
  const { replicas: count, cacheTokens, adaptive, speed, ...pool } = checked(POOL, given);
  const list = typeof count === "number" ? Array.from({ length: count }, () => ({})) : count;
  const seen = new Set<string>();
  const replicas = list.map((entry, index) => {
    const { id = `r${index}`, parallel: sequences = parallel, ...replica } = checked(REPLICA, entry);
    if (seen.has(id)) throw invalidOption(`pool.replicas[${index}].id`, "unique", id);
    seen.add(id);
    const { limit = sequences, speed, cacheTokens: cache = cacheTokens } = replica;
    return { id, parallel: sequences, limit, speed, cacheTokens: cache };
  });
  return {
    ...pool,
    replicas,
    adaptive: adaptiveOf(adaptive, replicas),
    /** The speed estimates' options; `undefined` with `speed: false`. */
    speed: resolveSpeed("pool.speed", speed),
  };
}

/** `gateway.maxConcurrency`: what the scheduler gets, and the FIFO baseline's limit (a range's `initial`). */
function gatewayLimitOf(given: ScenarioGateway["maxConcurrency"], fallback: number) {
  if (typeof given !== "object") return { fixed: given ?? fallback, option: given ?? fallback };
  const { min = 1, max = fallback, initial = min } = given;
  return { fixed: initial, option: { initial, min, max } };
}

function checkSize(top: Scenario, chat: ResolvedChat, batch: ResolvedBatch): void {
  const jobs = batch.jobs === null ? 0 : batch.jobs.count * batch.jobs.items.max;
  const requests =
    (chat.ratePerSec * top.durationMs) / 1_000 + batch.tenants.reduce((n, t) => n + t.items, 0) + jobs;
  if (requests > MAX_REQUESTS) {
    throw new ScenarioError(
      top.batch === undefined ? "chat.ratePerSec" : "batch.tenants",
      `The scenario asks for about ${Math.round(requests)} requests; at most ${MAX_REQUESTS} are supported`,
    );
  }
}

function resolve(input: unknown) {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw new ScenarioError("", invalidOption("scenario", "an object", input).message);
  const top = SCENARIO_NODE.check("", input);
  const { capacity: givenCapacity, ...latency } = top.upstream ?? {};
  const upstream = checked(LATENCY_SCHEMA, latency);
  const capacity = capacityOf(givenCapacity);
  if (top.pool !== undefined && givenCapacity !== undefined)
    throw invalidOption("pool", "left out when `upstream.capacity` is given", "a pool");
  const pool = poolOf(top.pool, upstream.parallel);
  const poolLimit = pool?.replicas.reduce((sum, replica) => sum + replica.limit, 0);
  const limit = gatewayLimitOf(top.gateway?.maxConcurrency, poolLimit ?? upstream.parallel);
  const chat = resolveChat(top.chat);
  const batch = resolveBatch(top.batch, chat.tenant);
  if (batch.priority === chat.priority) {
    throw invalidOption("batch.priority", `a priority other than chat's (${chat.priority})`, batch.priority);
  }
  checkSize(top, chat, batch);
  const scheduler = schedulerOptionsAt(top.scheduler, limit.option, [
    { field: "chat.priority", name: chat.priority },
    { field: "batch.priority", name: batch.priority },
  ]);
  const { name, description, seed, durationMs } = checked(SCENARIO, top);
  return {
    name,
    description,
    seed,
    durationMs,
    upstream,
    /** The server's real capacity, when the scenario sets one. */
    capacity,
    /** Replicas behind a router, when the scenario sets a pool (each with `upstream`'s timings). */
    pool,
    /** The FIFO baseline's limit (an adaptive range's `initial`). */
    maxConcurrency: limit.fixed,
    /** Ready for `createScheduler({ ...scheduler, clock })`; includes `maxConcurrency`. */
    scheduler,
    chat,
    batch,
    goal: checked(GOAL, top.goal),
  };
}

/** A validated scenario with every default filled in. */
export type ResolvedScenario = ReturnType<typeof resolve>;
/** `chat` resolved; `ratePerSec` is the mean rate over the run (with a schedule, the mean of its rates). */
export type ResolvedChat = ReturnType<typeof resolveChat>;
export type ResolvedBatch = ReturnType<typeof resolveBatch>;
export type ResolvedBatchTenant = ResolvedBatch["tenants"][number];
export type ResolvedBatchJobs = NonNullable<ResolvedBatch["jobs"]>;
export type ResolvedPool = NonNullable<ResolvedScenario["pool"]>;
export type ResolvedPoolAdaptive = NonNullable<ResolvedPool["adaptive"]>;
export type ResolvedReplica = ResolvedPool["replicas"][number];
export type ResolvedGoal = ResolvedScenario["goal"];

/**
 * Validates a scenario (typically parsed from a JSON file) and fills in every default. Throws a
 * {@link ScenarioError} whose `field` names the first bad field, with a message such as
 * ``Expected `batch.tenants[0].items` to be an integer from 0 to 10000000, got `-5` (number)``.
 *
 * @example
 * const scenario = resolveScenario({ durationMs: 60_000, batch: { tenants: [{ name: "indexer", items: 300 }] } });
 * scenario.chat.ratePerSec; // 1
 */
export function resolveScenario(input: Scenario | unknown): ResolvedScenario {
  try {
    return resolve(input);
  } catch (error) {
    throw asScenarioError(error);
  }
}

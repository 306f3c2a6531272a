import { MAX_ITEMS } from "@llm-scheduler/batches";
import { integerIn, invalidOption, object } from "@llm-scheduler/core/kit";
import { resolveLatencyOptions } from "@llm-scheduler/upstream-sim";
import { Capacity } from "./capacity.js";
import { checked } from "./fields.js";
import {
  BATCH,
  BATCH_TENANT,
  CHAT,
  GOAL,
  JOBS,
  type ResolvedBatch,
  type ResolvedChat,
  type ResolvedScenario,
  SCENARIO,
  type Scenario,
  type ScenarioBatch,
  type ScenarioChat,
  type ScenarioGateway,
  type ScenarioUpstream,
} from "./scenario.js";
import { asScenarioError, ScenarioError } from "./scenario-error.js";
import { poolOf } from "./scenario-pool.js";
import { schedulerOptionsAt } from "./scenario-scheduler.js";

/** More requests than this would not fit in memory comfortably; split the scenario instead. */
const MAX_REQUESTS = 5_000_000;

const SCENARIO_NODE = object(SCENARIO, { doc: "" });

/** `chat`; with a rate schedule, `ratePerSec` is the mean of its rates. */
function resolveChat(given: ScenarioChat = {}): ResolvedChat {
  const { rateSchedule, systemPrompts, ...chat } = checked(CHAT, given);
  if (rateSchedule !== undefined && given.ratePerSec !== undefined) {
    throw invalidOption("chat.ratePerSec", "left out when `chat.rateSchedule` is given", given.ratePerSec);
  }
  const rates = rateSchedule?.ratesPerSec;
  const ratePerSec =
    rates === undefined ? chat.ratePerSec : rates.reduce((sum, r) => sum + r, 0) / rates.length;
  return { ...chat, ratePerSec, rateSchedule: rateSchedule ?? null, systemPrompts: systemPrompts ?? null };
}

/** `batch`: tenant names unique and not chat's; `jobs` (batches with windows) `null` when left out. */
function resolveBatch(given: ScenarioBatch = {}, chatTenant: string): ResolvedBatch {
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
  if (batch.jobs === undefined) return { ...batch, tenants, jobs: null };
  const jobs = checked(JOBS, batch.jobs);
  const clash = jobs.tenants.indexOf(chatTenant);
  if (clash >= 0) throw invalidOption(`batch.jobs.tenants[${clash}]`, "not the chat tenant", chatTenant);
  if (jobs.items.max > MAX_ITEMS)
    throw invalidOption("batch.jobs.items.max", `at most ${MAX_ITEMS}`, jobs.items.max);
  return { ...batch, tenants, jobs };
}

/** `upstream.capacity` with its defaults; the hard limit is at least the knee. */
function capacityOf(given: ScenarioUpstream["capacity"]): Capacity["options"] | undefined {
  if (given === undefined) return undefined;
  const { options } = new Capacity(given);
  integerIn("upstream.capacity.hardLimit", options.hardLimit, options.knee, 100_000);
  return options;
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

function resolve(input: unknown): ResolvedScenario {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw new ScenarioError("", invalidOption("scenario", "an object", input).message);
  const top = SCENARIO_NODE.check("", input);
  const { capacity, ...latency } = top.upstream ?? {};
  const upstream = resolveLatencyOptions(latency);
  const capacityOptions = capacityOf(capacity);
  if (top.pool !== undefined && capacity !== undefined)
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
  const run = { name, description, seed, durationMs, upstream, capacity: capacityOptions, pool };
  return {
    ...run,
    maxConcurrency: limit.fixed,
    scheduler,
    chat,
    batch,
    goal: checked(GOAL, top.goal),
  };
}

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

import { object } from "@llm-scheduler/core/kit";
import { resolveLatencyOptions } from "@llm-scheduler/upstream-sim";
import { filled, span } from "./fields.js";
import {
  type ResolvedBatch,
  type ResolvedChat,
  type ResolvedGoal,
  type ResolvedScenario,
  SCENARIO,
  type Scenario,
  type ScenarioBatch,
  type ScenarioChat,
  SECTIONS,
} from "./scenario.js";
import { capacityOf, gatewayLimitOf } from "./scenario-capacity.js";
import { asScenarioError, invalidField, ScenarioError } from "./scenario-error.js";
import { resolveJobs } from "./scenario-jobs.js";
import { poolOf } from "./scenario-pool.js";
import { schedulerOptionsAt } from "./scenario-scheduler.js";

/** More requests than this would not fit in memory comfortably; split the scenario instead. */
const MAX_REQUESTS = 5_000_000;

const SCENARIO_NODE = object(SCENARIO, { doc: "" });

function resolveChat(given: ScenarioChat | undefined): ResolvedChat {
  const chat = filled(SECTIONS.CHAT, given);
  const schedule = given?.rateSchedule ?? null;
  if (schedule !== null && given?.ratePerSec !== undefined) {
    throw invalidField("chat.ratePerSec", "left out when `chat.rateSchedule` is given", given.ratePerSec);
  }
  const rates = schedule?.ratesPerSec;
  return {
    ...chat,
    // With a schedule, the mean of its rates.
    ratePerSec: rates === undefined ? chat.ratePerSec : rates.reduce((sum, r) => sum + r, 0) / rates.length,
    rateSchedule: schedule,
    promptTokens: span(chat.promptTokens),
    maxTokens: span(chat.maxTokens),
    systemPrompts: chat.systemPrompts ?? null,
    timeoutMs: chat.timeoutMs as number, // checked: "Infinity" is the number by now
  };
}

function resolveBatch(given: ScenarioBatch | undefined, chatTenant: string): ResolvedBatch {
  const batch = filled(SECTIONS.BATCH, given);
  const seen = new Set([chatTenant]);
  const tenants = batch.tenants.map((entry, index) => {
    const tenant = filled(SECTIONS.BATCH_TENANT, entry);
    if (seen.has(tenant.name)) {
      throw invalidField(`batch.tenants[${index}].name`, "unique (and not the chat tenant)", tenant.name);
    }
    seen.add(tenant.name);
    return { ...tenant, promptTokens: span(tenant.promptTokens), maxTokens: span(tenant.maxTokens) };
  });
  const timeoutMs = batch.timeoutMs as number; // checked: "Infinity" is the number by now
  return { ...batch, timeoutMs, tenants, jobs: resolveJobs(given?.jobs, chatTenant) };
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
    throw invalidField("", "an object", input);
  const top = SCENARIO_NODE.check("", input);
  const { capacity, ...latency } = top.upstream ?? {};
  const upstream = resolveLatencyOptions(latency);
  const capacityOptions = capacityOf(capacity);
  if (top.pool !== undefined && capacity !== undefined)
    throw invalidField("pool", "left out when `upstream.capacity` is given", "a pool");
  const pool = poolOf(top.pool, upstream.parallel);
  const poolLimit = pool?.replicas.reduce((sum, replica) => sum + replica.limit, 0);
  const limit = gatewayLimitOf(top.gateway?.maxConcurrency, poolLimit ?? upstream.parallel);
  const chat = resolveChat(top.chat);
  const batch = resolveBatch(top.batch, chat.tenant);
  if (batch.priority === chat.priority) {
    throw invalidField("batch.priority", `a priority other than chat's (${chat.priority})`, batch.priority);
  }
  checkSize(top, chat, batch);
  const scheduler = schedulerOptionsAt(top.scheduler, limit.option, [
    { field: "chat.priority", name: chat.priority },
    { field: "batch.priority", name: batch.priority },
  ]);
  const { name, description, seed, durationMs } = filled(SCENARIO, top);
  const goal = filled(SECTIONS.GOAL, top.goal) as ResolvedGoal; // checked: "Infinity" is the number
  return {
    name,
    description,
    seed,
    durationMs,
    upstream,
    capacity: capacityOptions,
    pool,
    maxConcurrency: limit.fixed,
    scheduler,
    chat,
    batch,
    goal,
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

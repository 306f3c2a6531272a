import { resolveLatencyOptions } from "@llm-scheduler/upstream-sim";
import { numberAt, objectAt, type RawObject, rangeAt, stringAt } from "./fields.js";
import type {
  ResolvedBatch,
  ResolvedBatchTenant,
  ResolvedChat,
  ResolvedGoal,
  ResolvedScenario,
  Scenario,
  ScenarioRateSchedule,
} from "./scenario.js";
import { capacityAt, gatewayLimitAt } from "./scenario-capacity.js";
import { invalidField, ScenarioError } from "./scenario-error.js";
import { resolveJobs } from "./scenario-jobs.js";
import { poolAt, systemPromptsAt } from "./scenario-pool.js";
import { schedulerOptionsAt } from "./scenario-scheduler.js";

const TOP_KEYS = [
  "$schema",
  "name",
  "description",
  "seed",
  "durationMs",
  "upstream",
  "pool",
  "gateway",
  "scheduler",
  "chat",
  "batch",
  "goal",
];
const UPSTREAM_KEYS = ["parallel", "ttftMs", "prefillMsPerToken", "tokenMs", "slowdown", "capacity"];
const CHAT_KEYS = [
  "ratePerSec",
  "rateSchedule",
  "priority",
  "tenant",
  "promptTokens",
  "maxTokens",
  "timeoutMs",
  "retries",
  "retryDelayMs",
  "systemPrompts",
];
const BATCH_KEYS = ["priority", "timeoutMs", "retries", "retryDelayMs", "tenants", "jobs"];
const TENANT_KEYS = ["name", "items", "startMs", "spreadMs", "promptTokens", "maxTokens"];
const GOAL_KEYS = ["interactiveWaitP95Ms", "interactiveTtftP95Ms", "maxUnanswered"];

/** More requests than this would not fit in memory comfortably; split the scenario instead. */
const MAX_REQUESTS = 5_000_000;

const DAY = 86_400_000;
/** Every number has a range: these are wide enough for any real traffic and catch a slipped exponent. */
const DELAY_MS = { min: 0, max: 7 * DAY } as const;
const COUNT = { min: 0, integer: true, max: 10_000_000 } as const;
const RETRIES = { min: 0, integer: true, max: 100 } as const;
const SLOTS = { min: 1, integer: true, max: 100_000 } as const;

function resolveUpstream(value: unknown): ResolvedScenario["upstream"] {
  const raw = objectAt("upstream", value, UPSTREAM_KEYS);
  return resolveLatencyOptions({
    parallel: numberAt("upstream.parallel", raw.parallel, 4, SLOTS),
    ttftMs: numberAt("upstream.ttftMs", raw.ttftMs, 50, DELAY_MS),
    prefillMsPerToken: numberAt("upstream.prefillMsPerToken", raw.prefillMsPerToken, 0.2, {
      min: 0,
      max: 60_000,
    }),
    tokenMs: numberAt("upstream.tokenMs", raw.tokenMs, 20, DELAY_MS),
    slowdown: numberAt("upstream.slowdown", raw.slowdown, 1, { min: 0, max: 1_000 }),
  });
}

const RATE = { min: 0, max: 100_000 } as const;

function resolveSchedule(value: unknown): ScenarioRateSchedule | null {
  if (value === undefined) return null;
  const raw = objectAt("chat.rateSchedule", value, ["stepMs", "ratesPerSec"]);
  if (raw.stepMs === undefined) throw invalidField("chat.rateSchedule.stepMs", "a number > 0", raw.stepMs);
  const stepMs = numberAt("chat.rateSchedule.stepMs", raw.stepMs, 0, { min: 1, max: 365 * DAY });
  const list = raw.ratesPerSec;
  if (!Array.isArray(list) || list.length === 0 || list.length > 10_000) {
    throw invalidField("chat.rateSchedule.ratesPerSec", "an array of 1 to 10000 rates", list);
  }
  const ratesPerSec = list.map((rate: unknown, i) =>
    numberAt(`chat.rateSchedule.ratesPerSec[${i}]`, rate ?? Number.NaN, 0, RATE),
  );
  return { stepMs, ratesPerSec };
}

function resolveChat(value: unknown): ResolvedChat {
  const raw = objectAt("chat", value, CHAT_KEYS);
  const rateSchedule = resolveSchedule(raw.rateSchedule);
  if (rateSchedule !== null && raw.ratePerSec !== undefined) {
    throw invalidField("chat.ratePerSec", "left out when `chat.rateSchedule` is given", raw.ratePerSec);
  }
  const mean = rateSchedule?.ratesPerSec.reduce((sum, rate) => sum + rate, 0);
  return {
    ratePerSec:
      rateSchedule === null
        ? numberAt("chat.ratePerSec", raw.ratePerSec, 1, RATE)
        : mean! / rateSchedule.ratesPerSec.length,
    rateSchedule,
    priority: stringAt("chat.priority", raw.priority, "interactive"),
    tenant: stringAt("chat.tenant", raw.tenant, "chat"),
    promptTokens: rangeAt("chat.promptTokens", raw.promptTokens, { min: 20, max: 200 }),
    maxTokens: rangeAt("chat.maxTokens", raw.maxTokens, { min: 16, max: 64 }, 1),
    timeoutMs: numberAt("chat.timeoutMs", raw.timeoutMs, 10_000, {
      ...DELAY_MS,
      exclusive: true,
      infinity: true,
    }),
    retries: numberAt("chat.retries", raw.retries, 2, RETRIES),
    retryDelayMs: numberAt("chat.retryDelayMs", raw.retryDelayMs, 1_000, DELAY_MS),
    systemPrompts: systemPromptsAt(raw.systemPrompts),
  };
}

function resolveTenant(path: string, value: unknown): ResolvedBatchTenant {
  const raw = objectAt(path, value, TENANT_KEYS);
  if (raw.name === undefined) throw invalidField(`${path}.name`, "a non-empty string", raw.name);
  if (raw.items === undefined) throw invalidField(`${path}.items`, "an integer >= 0", raw.items);
  return {
    name: stringAt(`${path}.name`, raw.name, ""),
    items: numberAt(`${path}.items`, raw.items, 0, COUNT),
    startMs: numberAt(`${path}.startMs`, raw.startMs, 0, { min: 0, max: 365 * DAY }),
    spreadMs: numberAt(`${path}.spreadMs`, raw.spreadMs, 0, { min: 0, max: 365 * DAY }),
    promptTokens: rangeAt(`${path}.promptTokens`, raw.promptTokens, { min: 200, max: 800 }),
    maxTokens: rangeAt(`${path}.maxTokens`, raw.maxTokens, { min: 100, max: 300 }, 1),
  };
}

function resolveBatch(value: unknown, chatTenant: string): ResolvedBatch {
  const raw = objectAt("batch", value, BATCH_KEYS);
  const list = raw.tenants ?? [];
  if (!Array.isArray(list)) throw invalidField("batch.tenants", "an array", list);
  const tenants = list.map((tenant: unknown, index) => resolveTenant(`batch.tenants[${index}]`, tenant));
  const seen = new Set([chatTenant]);
  tenants.forEach((tenant, index) => {
    if (seen.has(tenant.name)) {
      throw invalidField(`batch.tenants[${index}].name`, "unique (and not the chat tenant)", tenant.name);
    }
    seen.add(tenant.name);
  });
  return {
    priority: stringAt("batch.priority", raw.priority, "batch"),
    timeoutMs: numberAt("batch.timeoutMs", raw.timeoutMs, Number.POSITIVE_INFINITY, {
      ...DELAY_MS,
      exclusive: true,
      infinity: true,
    }),
    retries: numberAt("batch.retries", raw.retries, 3, RETRIES),
    retryDelayMs: numberAt("batch.retryDelayMs", raw.retryDelayMs, 1_000, DELAY_MS),
    tenants,
    jobs: resolveJobs(raw.jobs, chatTenant),
  };
}

function resolveGoal(value: unknown): ResolvedGoal {
  const raw = objectAt("goal", value, GOAL_KEYS);
  const infinite = Number.POSITIVE_INFINITY;
  return {
    interactiveWaitP95Ms: numberAt("goal.interactiveWaitP95Ms", raw.interactiveWaitP95Ms, 1_000, {
      ...DELAY_MS,
      infinity: true,
    }),
    interactiveTtftP95Ms: numberAt("goal.interactiveTtftP95Ms", raw.interactiveTtftP95Ms, infinite, {
      ...DELAY_MS,
      infinity: true,
    }),
    maxUnanswered: numberAt("goal.maxUnanswered", raw.maxUnanswered, infinite, { ...COUNT, infinity: true }),
  };
}

function checkSize(top: RawObject, durationMs: number, chat: ResolvedChat, batch: ResolvedBatch): void {
  const jobs = batch.jobs === null ? 0 : batch.jobs.count * batch.jobs.items.max;
  const requests =
    (chat.ratePerSec * durationMs) / 1_000 + batch.tenants.reduce((n, t) => n + t.items, 0) + jobs;
  if (requests > MAX_REQUESTS) {
    throw new ScenarioError(
      top.batch === undefined ? "chat.ratePerSec" : "batch.tenants",
      `The scenario asks for about ${Math.round(requests)} requests; at most ${MAX_REQUESTS} are supported`,
    );
  }
}

/**
 * Validates a scenario (typically parsed from a JSON file) and fills in every default. Throws a
 * {@link ScenarioError} whose `field` names the first bad field, with a message such as
 * ``Expected `batch.tenants[0].items` to be an integer >= 0, got `-5` (number)``.
 *
 * @example
 * const scenario = resolveScenario({ durationMs: 60_000, batch: { tenants: [{ name: "indexer", items: 300 }] } });
 * scenario.chat.ratePerSec; // 1
 */
export function resolveScenario(input: Scenario | unknown): ResolvedScenario {
  const top = objectAt("", input, TOP_KEYS);
  if (top.durationMs === undefined) throw invalidField("durationMs", "a number > 0", top.durationMs);
  const durationMs = numberAt("durationMs", top.durationMs, 0, { min: 0, exclusive: true, max: 365 * DAY });
  const upstream = resolveUpstream(top.upstream);
  const capacity = capacityAt((top.upstream as { capacity?: unknown } | undefined)?.capacity);
  const pool = poolAt(top.pool, upstream.parallel, capacity !== undefined);
  const gateway = objectAt("gateway", top.gateway, ["maxConcurrency"]);
  const poolLimit = pool?.replicas.reduce((sum, replica) => sum + replica.limit, 0);
  const limit = gatewayLimitAt(gateway.maxConcurrency, poolLimit ?? upstream.parallel);
  const chat = resolveChat(top.chat);
  const batch = resolveBatch(top.batch, chat.tenant);
  if (batch.priority === chat.priority) {
    throw invalidField("batch.priority", `a priority other than chat's (${chat.priority})`, batch.priority);
  }
  checkSize(top, durationMs, chat, batch);
  const scheduler = schedulerOptionsAt(top.scheduler, limit.option, [
    { field: "chat.priority", name: chat.priority },
    { field: "batch.priority", name: batch.priority },
  ]);
  return {
    name: stringAt("name", top.name, "scenario"),
    description: stringAt("description", top.description, "", true),
    seed: numberAt("seed", top.seed, 1, { integer: true, min: 0, max: 2 ** 32 - 1 }),
    durationMs,
    upstream,
    capacity,
    pool,
    maxConcurrency: limit.fixed,
    scheduler,
    chat,
    batch,
    goal: resolveGoal(top.goal),
  };
}

import { createScheduler, isSchedulerError, type SchedulerOptions } from "@llm-scheduler/core";
import { PRIORITY_KEYS } from "@llm-scheduler/core/kit";
import { objectAt, type RawObject } from "./fields.js";
import { invalidField, ScenarioError } from "./scenario-error.js";

const SCHEDULER_KEYS = [
  "priorities",
  "tenants",
  "tenantDefaults",
  "maxTokensInFlight",
  "fairness",
  "outputTokenWeight",
  "maxQueue",
  "retryWindowMs",
  "abortGraceMs",
  "adaptive",
  "waitTargets",
] as const;
const INFINITE_KEYS = new Set([
  "queueTimeoutMs",
  "maxQueue",
  "maxWaitMs",
  "maxConcurrency",
  "tokensPerMinute",
  "maxTokensInFlight",
]);

/** JSON has no infinity: `"Infinity"` stands for it in bounds and durations. */
function withInfinity(object: RawObject): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(object).map(([key, value]) => [
      key,
      INFINITE_KEYS.has(key) && value === "Infinity" ? Number.POSITIVE_INFINITY : value,
    ]),
  );
}

/** `"Infinity"` in each tenant's quotas (core checks the fields themselves). */
function tenantsAt(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  const raw = objectAt("scheduler.tenants", value, Object.keys(value ?? {}));
  return Object.fromEntries(
    Object.entries(raw).map(([name, fields]) => [
      name,
      fields !== null && typeof fields === "object" ? withInfinity(fields as RawObject) : fields,
    ]),
  );
}

function prioritiesAt(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  const raw = objectAt("scheduler.priorities", value, Object.keys(value ?? {}));
  const priorities: Record<string, unknown> = {};
  for (const [name, fields] of Object.entries(raw)) {
    priorities[name] = withInfinity(objectAt(`scheduler.priorities.${name}`, fields, PRIORITY_KEYS));
  }
  return priorities;
}

/** Core names the field in backticks (``Expected `priorities.batch.weight` ...``); put it under `scheduler.`. */
function fromCore(error: Error): ScenarioError {
  const field = /`([^`]+)`/.exec(error.message)?.[1] ?? "";
  const path = field === "" ? "scheduler" : `scheduler.${field}`;
  const message = field === "" ? error.message : error.message.replace(`\`${field}\``, `\`${path}\``);
  return new ScenarioError(path, message, { cause: error });
}

/**
 * Validates the `scheduler` section by building a real scheduler from it (so the checks are exactly
 * core's), and returns options ready for `createScheduler({ ...options, clock })`. `priorities` must
 * include `required` (the priorities chat and batch requests ask for).
 *
 * @example
 * schedulerOptionsAt({ priorities: { interactive: { weight: 5 }, batch: {} } }, 8, ["interactive", "batch"]);
 */
export function schedulerOptionsAt(
  value: unknown,
  maxConcurrency: SchedulerOptions["maxConcurrency"],
  required: readonly { readonly field: string; readonly name: string }[],
): SchedulerOptions {
  const raw = withInfinity(objectAt("scheduler", value, SCHEDULER_KEYS));
  const options: SchedulerOptions = {
    ...raw,
    priorities: prioritiesAt(raw.priorities) as SchedulerOptions["priorities"],
    tenants: tenantsAt(raw.tenants) as SchedulerOptions["tenants"],
    tenantDefaults: (raw.tenantDefaults !== null && typeof raw.tenantDefaults === "object"
      ? withInfinity(raw.tenantDefaults as RawObject)
      : raw.tenantDefaults) as SchedulerOptions["tenantDefaults"],
    maxConcurrency,
  };
  let names: readonly string[];
  try {
    names = createScheduler(options).options.priorities.map((priority) => priority.name);
  } catch (error) {
    if (isSchedulerError(error)) throw fromCore(error);
    throw error;
  }
  for (const { field, name } of required) {
    if (!names.includes(name)) {
      throw invalidField(field, `one of the scheduler's priorities (${names.join(", ")})`, name);
    }
  }
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as SchedulerOptions;
}

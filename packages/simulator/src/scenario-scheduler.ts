import {
  createScheduler,
  isSchedulerError,
  optionsFromJson,
  type SchedulerOptions,
} from "@llm-scheduler/core";
import { PRIORITY_KEYS } from "@llm-scheduler/core/kit";
import { objectAt } from "./fields.js";
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
/** The priorities' keys, checked here so a typo names its scenario field (core checks the values). */
function checkPriorities(value: unknown): void {
  if (value === undefined) return;
  const raw = objectAt("scheduler.priorities", value, Object.keys(value ?? {}));
  for (const [name, fields] of Object.entries(raw))
    objectAt(`scheduler.priorities.${name}`, fields, PRIORITY_KEYS);
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
  const raw = objectAt("scheduler", value, SCHEDULER_KEYS);
  checkPriorities(raw.priorities);
  // JSON has no infinity: `"Infinity"` stands for it wherever core's schema takes an infinite bound.
  const options: SchedulerOptions = { ...optionsFromJson(raw), maxConcurrency };
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

import { createScheduler, optionsFromJson, type SchedulerOptions } from "@llm-scheduler/core";
import { custom, invalidOption, PRIORITY_KEYS, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { asScenarioError, invalidField } from "./scenario-error.js";

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
type SchedulerKey = (typeof SCHEDULER_KEYS)[number];

/**
 * The scheduler's options as JSON: anything `createScheduler()` takes except `maxConcurrency` (set by
 * `gateway.maxConcurrency`), `clock` and `store`. Durations and bounds may be the string `"Infinity"`.
 */
export type ScenarioScheduler = Omit<Pick<SchedulerOptions, SchedulerKey>, "maxTokensInFlight"> & {
  readonly maxTokensInFlight?: number | "Infinity";
};

/**
 * The `scheduler` section: its keys and the priorities' keys are checked here, so that a typo names its
 * scenario field; the values are checked by core itself when {@link schedulerOptionsAt} builds a scheduler.
 */
export const SCHEDULER_SECTION = custom<ScenarioScheduler>({
  check: (path, value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw invalidOption(path, "an object", value);
    rejectUnknownKeys(path, value, SCHEDULER_KEYS);
    const priorities = (value as ScenarioScheduler).priorities;
    if (typeof priorities !== "object" || priorities === null) return value as ScenarioScheduler;
    for (const [name, fields] of Object.entries(priorities)) {
      if (typeof fields === "object" && fields !== null)
        rejectUnknownKeys(`${path}.priorities.${name}`, fields, PRIORITY_KEYS);
    }
    return value as ScenarioScheduler;
  },
  range: "an object of `createScheduler()` options",
  json: { type: "object" },
  shownDefault: "core's defaults",
  doc: '`priorities`, `tenants`, `tenantDefaults`, `maxTokensInFlight`, `fairness`, `outputTokenWeight`, `maxQueue`, `retryWindowMs`, `abortGraceMs`, `adaptive`, `waitTargets`, exactly as `createScheduler()` takes them (`"Infinity"` for no bound)',
});

/**
 * Validates the `scheduler` section by building a real scheduler from it (so the checks are exactly
 * core's), and returns options ready for `createScheduler({ ...options, clock })`. `priorities` must
 * include `required` (the priorities chat and batch requests ask for).
 *
 * @example
 * schedulerOptionsAt({ priorities: { interactive: { weight: 5 }, batch: {} } }, 8, ["interactive", "batch"]);
 */
export function schedulerOptionsAt(
  raw: ScenarioScheduler = {},
  maxConcurrency: SchedulerOptions["maxConcurrency"],
  required: readonly { readonly field: string; readonly name: string }[],
): SchedulerOptions {
  // JSON has no infinity: `"Infinity"` stands for it wherever core's schema takes an infinite bound.
  const options: SchedulerOptions = { ...optionsFromJson(raw), maxConcurrency };
  let names: readonly string[];
  try {
    names = createScheduler(options).options.priorities.map((priority) => priority.name);
  } catch (error) {
    throw asScenarioError(error, "scheduler");
  }
  for (const { field, name } of required) {
    if (!names.includes(name)) {
      throw invalidField(field, `one of the scheduler's priorities (${names.join(", ")})`, name);
    }
  }
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as SchedulerOptions;
}

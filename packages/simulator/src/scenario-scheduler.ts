import { createScheduler, optionsFromJson, type SchedulerOptions } from "@llm-scheduler/core";
import { custom, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { asScenarioError } from "./scenario-error.js";

/** The options of `createScheduler()` a scenario may set: not the limit (`gateway.maxConcurrency`), a clock or a store. */
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

/**
 * The scheduler's options: anything `createScheduler()` takes except `maxConcurrency` (set by
 * `gateway.maxConcurrency`), `clock` and `store`. In a file, a bound may be the string `"Infinity"`.
 */
export type ScenarioScheduler = Pick<SchedulerOptions, (typeof SCHEDULER_KEYS)[number]>;

/**
 * The `scheduler` section: its keys are checked here; the values are checked by core itself when
 * {@link schedulerOptionsAt} builds a scheduler, so they are exactly as strict as `createScheduler()`.
 */
export const SCHEDULER_SECTION = custom<ScenarioScheduler>({
  check: (path, value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw invalidOption(path, "an object", value);
    rejectUnknownKeys(path, value, SCHEDULER_KEYS);
    return value as ScenarioScheduler;
  },
  range: "an object of `createScheduler()` options",
  json: { type: "object" },
  shownDefault: "core's defaults",
  doc: `${SCHEDULER_KEYS.map((key) => `\`${key}\``).join(", ")}, exactly as \`createScheduler()\` takes them (\`"Infinity"\` for no bound)`,
});

/**
 * Validates the `scheduler` section by building a real scheduler from it (so the checks are exactly
 * core's, named under `scheduler.`), and returns options ready for `createScheduler({ ...options, clock })`.
 * `required` are the priorities chat and batch requests ask for: each must be one of the scheduler's.
 *
 * @example
 * schedulerOptionsAt({ priorities: { interactive: { weight: 5 }, batch: {} } }, 8, [{ field: "chat.priority", name: "interactive" }]);
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
      throw invalidOption(field, `one of the scheduler's priorities (${names.join(", ")})`, name);
    }
  }
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as SchedulerOptions;
}

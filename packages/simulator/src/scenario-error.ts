import { isSchedulerError } from "@llm-scheduler/core";

/**
 * A scenario that cannot be used. `field` is the dotted path of the offending field (for example
 * `batch.tenants[1].items`), and the message says what was expected and what was found:
 * ``Expected `chat.ratePerSec` to be a number from 0 to 100000, got `-1` (number)``.
 *
 * @example
 * try {
 *   resolveScenario(JSON.parse(text));
 * } catch (error) {
 *   if (error instanceof ScenarioError) console.error(`bad field ${error.field}: ${error.message}`);
 * }
 */
export class ScenarioError extends Error {
  readonly code = "INVALID_SCENARIO";
  /** Dotted path of the field at fault; `""` for the scenario as a whole. */
  readonly field: string;

  constructor(field: string, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = "ScenarioError";
    this.field = field;
  }
}

/**
 * Core's `INVALID_OPTION` (the schema's, or core's own checks) as a {@link ScenarioError}: its field is
 * the path the message names first (``Expected `chat.ratePerSec` …``, ``Unknown option `chat.rate` …``),
 * put `under` a section when core checked it (`priorities.batch.weight` is `scheduler.priorities.batch.weight`).
 * Anything else is returned as it is.
 */
export function asScenarioError(error: unknown, under = ""): unknown {
  if (!isSchedulerError(error)) return error;
  const named = /`([^`]+)`/.exec(error.message)?.[1] ?? "";
  const field = under === "" ? named : named === "" ? under : `${under}.${named}`;
  const message = named === "" ? error.message : error.message.replace(`\`${named}\``, `\`${field}\``);
  return new ScenarioError(field, message, { cause: error });
}

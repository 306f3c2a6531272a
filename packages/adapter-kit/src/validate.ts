import type { SchedulerError } from "@llm-scheduler/core";
import { invalidOption } from "@llm-scheduler/core/kit";

/**
 * An `INVALID_OPTION` error in the house shape, so adapter options fail the way core options do:
 * ``Expected `timeoutMs` to be a positive number of milliseconds, got `0` (number)``.
 */
export function optionError(field: string, expected: string, value: unknown): SchedulerError {
  return invalidOption(field, expected, value);
}

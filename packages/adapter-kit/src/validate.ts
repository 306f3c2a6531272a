import { ErrorCode, SchedulerError } from "@llm-scheduler/core";

function shown(value: unknown): string {
  if (typeof value === "function") return value.name === "" ? "[function]" : `[function ${value.name}]`;
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * An `INVALID_OPTION` error in the house shape, so adapter options fail the way core options do:
 * ``Expected `timeoutMs` to be a positive number of milliseconds, got `0` (number)``.
 */
export function optionError(field: string, expected: string, value: unknown): SchedulerError {
  const kind = value === null ? "null" : typeof value;
  return new SchedulerError(
    ErrorCode.INVALID_OPTION,
    `Expected \`${field}\` to be ${expected}, got \`${shown(value)}\` (${kind})`,
  );
}

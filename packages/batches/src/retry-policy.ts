import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { RetryPolicy } from "./types.js";

const DEFAULT: RetryPolicy = { maxAttempts: 4, baseMs: 1_000, maxMs: 60_000 };

/**
 * Validates a retry policy (`INVALID_OPTION` naming `retry.<field>`), each field left out taken from
 * `defaults`.
 *
 * @example
 * retryOf({ maxAttempts: 2 }); // { maxAttempts: 2, baseMs: 1_000, maxMs: 60_000 }
 */
export function retryOf(value: unknown, defaults: RetryPolicy = DEFAULT): RetryPolicy {
  if (value === undefined) return defaults;
  if (value === null || typeof value !== "object") throw invalidOption("retry", "an object", value);
  rejectUnknownKeys("retry", value, ["maxAttempts", "baseMs", "maxMs"]);
  const given = value as Partial<RetryPolicy>;
  const baseMs = integerIn("retry.baseMs", given.baseMs, 1, 3_600_000, defaults.baseMs);
  const maxMs = integerIn("retry.maxMs", given.maxMs, baseMs, 3_600_000, Math.max(defaults.maxMs, baseMs));
  const maxAttempts = integerIn("retry.maxAttempts", given.maxAttempts, 1, 100, defaults.maxAttempts);
  return { maxAttempts, baseMs, maxMs };
}

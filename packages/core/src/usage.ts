import { MAX_TOKENS } from "./options.js";
import type { TokenUsage } from "./store.js";
import { integerIn, plainObject, rejectUnknownKeys } from "./validate.js";

export type { TokenUsage } from "./store.js";

const USAGE_KEYS: readonly (keyof TokenUsage)[] = ["inputTokens", "outputTokens"];

/**
 * Checks what a task reports through `reportUsage`: an object with `inputTokens` and `outputTokens`,
 * each an integer from 0 to 10^12 (a missing one counts 0). Throws `INVALID_OPTION` otherwise.
 *
 * @example
 * checkedUsage({ inputTokens: 812, outputTokens: 64 }); // { inputTokens: 812, outputTokens: 64 }
 */
export function checkedUsage(usage: unknown): TokenUsage {
  const object = plainObject("usage", usage);
  rejectUnknownKeys("usage", object, USAGE_KEYS);
  return {
    inputTokens: integerIn("usage.inputTokens", object.inputTokens ?? 0, 0, MAX_TOKENS),
    outputTokens: integerIn("usage.outputTokens", object.outputTokens ?? 0, 0, MAX_TOKENS),
  };
}

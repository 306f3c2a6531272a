import type { Meta, Node } from "@llm-scheduler/core";
import { custom, invalidOption } from "@llm-scheduler/core/kit";

/**
 * A credential or any other secret string: checked like a string, but a wrong value is never shown
 * (only its type or length), so a typo in a key never reaches a terminal or a log.
 *
 * @example
 * const key = secret(16, 4096, { doc: "the API key" });
 */
export function secret(min: number, max: number, meta: Meta<string>): Node<string> {
  const range = `a string of ${min} to ${max} characters`;
  return custom<string>({
    ...meta,
    range,
    json: { type: "string", minLength: min, maxLength: max },
    check(path, value) {
      if (typeof value === "string" && value.length >= min && value.length <= max) return value;
      const shown =
        typeof value === "string" ? `[a secret of ${value.length} characters]` : `[a ${typeof value}]`;
      throw invalidOption(path, range, shown);
    },
  });
}

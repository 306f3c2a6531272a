import { SCHEDULER } from "../option-schema.js";
import { type JsonSchema, object } from "./schema.js";

/**
 * The JSON Schema (draft 2020-12) of `createScheduler()`'s options as a file can hold them: every option
 * but `store` and `clock`, unknown keys refused, each with its description and default. JSON has no
 * infinite number, so a bound that takes `Infinity` takes the string `"Infinity"` in a file: a loader
 * maps it to the number before calling `createScheduler()`.
 *
 * @example
 * import { writeFileSync } from "node:fs";
 * writeFileSync("scheduler.schema.json", JSON.stringify(toJsonSchema(), null, 2));
 */
export function toJsonSchema(): JsonSchema {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "llm-scheduler options",
    ...object(SCHEDULER, { doc: "" }).json,
  };
}

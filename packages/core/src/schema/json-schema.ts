import { SCHEDULER, type SchedulerOptions } from "../options.js";
import { defineEntry, type JsonSchema, type Node, object } from "./schema.js";

const OPTIONS = object(SCHEDULER, { doc: "" });

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
    ...OPTIONS.json,
  };
}

/** `value` with `"Infinity"` turned into the number wherever `node`'s JSON Schema takes the string for it. */
function fromJson(node: Node<unknown>, value: unknown): unknown {
  const anyOf = node.json?.anyOf;
  const infinite =
    Array.isArray(anyOf) && anyOf.some((branch) => (branch as JsonSchema).const === "Infinity");
  if (value === "Infinity" && infinite) return Number.POSITIVE_INFINITY;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const { shape, entry } = node;
  if (shape === undefined && entry === undefined) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const inner = entry ?? shape?.[key];
    defineEntry(out, key, inner === undefined ? field : fromJson(inner, field)); // the check names a `__proto__`
  }
  return out;
}

/**
 * Options read from a JSON file (valid against {@link toJsonSchema}) as `createScheduler()` takes them:
 * each `"Infinity"` where a bound may be infinite becomes the number. Nothing else changes, and nothing
 * is checked here: `createScheduler()` checks it all, naming the path of anything wrong.
 *
 * @example
 * const scheduler = createScheduler(optionsFromJson(JSON.parse(readFileSync("scheduler.json", "utf8"))));
 */
export function optionsFromJson(json: unknown): SchedulerOptions {
  return fromJson(OPTIONS, json) as SchedulerOptions;
}

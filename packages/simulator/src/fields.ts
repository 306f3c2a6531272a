import { rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { ResolvedRange } from "./scenario.js";
import { invalidField, ScenarioError } from "./scenario-error.js";

/** A JSON object as read from a scenario, before its fields are checked. */
export type RawObject = Readonly<Record<string, unknown>>;

const join = (path: string, key: string): string => (path === "" ? key : `${path}.${key}`);

/**
 * Checks that `value` at `path` is a plain object with only `known` keys; `undefined` reads as `{}`.
 * An unknown key is an error that names it and the nearest known one (core's `rejectUnknownKeys`, one
 * message shape in every package), so a typo does not silently do nothing.
 */
export function objectAt(path: string, value: unknown, known: readonly string[]): RawObject {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidField(path, "an object", value);
  }
  try {
    rejectUnknownKeys(path, value, known);
  } catch (error) {
    // Core's message (the key, the nearest known one, the list), as a ScenarioError naming the field.
    const key = Object.keys(value).find((k) => !known.includes(k)) ?? "";
    throw new ScenarioError(join(path, key), (error as Error).message, { cause: error });
  }
  return value as RawObject;
}

interface NumberRule {
  readonly min?: number;
  /** The value must be greater than `min`, not equal to it. */
  readonly exclusive?: boolean;
  /** The largest value allowed. */
  readonly max?: number;
  readonly integer?: boolean;
  /** Accept `"Infinity"` (JSON has no infinity) and `Infinity`. */
  readonly infinity?: boolean;
}

function describeRule(rule: NumberRule): string {
  const kind = rule.integer === true ? "an integer" : "a number";
  const lower = rule.min === undefined ? "" : ` ${rule.exclusive === true ? ">" : ">="} ${rule.min}`;
  const bound =
    rule.max === undefined
      ? lower
      : rule.min !== undefined && rule.exclusive !== true
        ? ` from ${rule.min} to ${rule.max}`
        : `${lower} and <= ${rule.max}`;
  return `${kind}${bound}${rule.infinity === true ? ' or "Infinity"' : ""}`;
}

/** Reads a number field (or its default), checking it against `rule`. */
export function numberAt(path: string, value: unknown, fallback: number, rule: NumberRule = {}): number {
  if (value === undefined) return fallback;
  if (rule.infinity === true && (value === "Infinity" || value === Number.POSITIVE_INFINITY)) {
    return Number.POSITIVE_INFINITY;
  }
  const ok =
    typeof value === "number" &&
    Number.isFinite(value) &&
    (rule.integer !== true || Number.isInteger(value)) &&
    (rule.min === undefined || (rule.exclusive === true ? value > rule.min : value >= rule.min)) &&
    (rule.max === undefined || value <= rule.max);
  if (!ok) throw invalidField(path, describeRule(rule), value);
  return value as number;
}

/** Reads a non-empty string field (or its default). */
export function stringAt(path: string, value: unknown, fallback: string, allowEmpty = false): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || (!allowEmpty && value === "")) {
    throw invalidField(path, allowEmpty ? "a string" : "a non-empty string", value);
  }
  return value;
}

/** The most tokens a prompt or an answer may have: far beyond any model's context. */
const MAX_TOKENS = 10_000_000;

/** Reads a {@link Range}: a whole number >= `least`, or `{ min, max }` with `least <= min <= max`. */
export function rangeAt(path: string, value: unknown, fallback: ResolvedRange, least = 0): ResolvedRange {
  if (value === undefined) return fallback;
  if (typeof value === "number") {
    const fixed = numberAt(path, value, 0, { integer: true, min: least, max: MAX_TOKENS });
    return { min: fixed, max: fixed };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidField(path, "a whole number or an object { min, max }", value);
  }
  const raw = objectAt(path, value, ["min", "max"]);
  if (raw.min === undefined) throw invalidField(`${path}.min`, `an integer >= ${least}`, raw.min);
  if (raw.max === undefined) throw invalidField(`${path}.max`, `an integer >= ${least}`, raw.max);
  const min = numberAt(`${path}.min`, raw.min, 0, { integer: true, min: least, max: MAX_TOKENS });
  const max = numberAt(`${path}.max`, raw.max, 0, { integer: true, min: min, max: MAX_TOKENS });
  return { min, max };
}

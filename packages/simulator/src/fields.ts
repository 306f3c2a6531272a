import type { InferShape, Meta, Node, Shape } from "@llm-scheduler/core";
import {
  custom,
  integer,
  invalidOption,
  type Resolved,
  rejectUnknownKeys,
  withDefaults,
} from "@llm-scheduler/core/kit";

/** A node's type keeps its default, so that `Resolved` knows the field is always there. */
type Defaulted<M> = M extends { readonly default: infer D } ? { readonly default: D } : unknown;

/**
 * A whole-number amount: a plain number is fixed, `{ min, max }` is drawn uniformly from `min..max`
 * (both included) for each request.
 *
 * @example
 * const promptTokens: Range = { min: 20, max: 200 };
 */
export type Range = number | { readonly min: number; readonly max: number };

/** A range after validation. */
export interface ResolvedRange {
  readonly min: number;
  readonly max: number;
}

/**
 * `node`, or `Infinity`: JSON has none, so a file gives the string `"Infinity"`. The check always
 * returns a number (`"Infinity"` becomes `Infinity`); the type takes the string for files written in code.
 *
 * @example
 * const timeoutMs = orInfinity(positive(DAY, { default: 10_000, doc: "…" }));
 */
export function orInfinity<N extends Node<number>>(node: N): Node<number | "Infinity"> & Defaulted<N> {
  const range = `${node.range}, or "Infinity"`;
  const check = (path: string, value: unknown): number => {
    if (value === "Infinity" || value === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
    if (typeof value === "number" && !Number.isNaN(value)) return node.check(path, value);
    throw invalidOption(path, range, value);
  };
  return { ...node, check, range, json: { anyOf: [node.json, { const: "Infinity" }] } } as never;
}

/**
 * An array of `min` to `max` entries of `entry`'s schema, each checked with its index in the path.
 *
 * @example
 * const ratesPerSec = list(number(0, 100_000, { doc: "…" }), 1, 10_000, { doc: "…" });
 */
export function list<T, M extends Meta<readonly T[]>>(
  entry: Node<T>,
  min: number,
  max: number,
  meta: M,
): Node<readonly T[]> & Defaulted<M> {
  const range = max === Number.POSITIVE_INFINITY ? "an array" : `an array of ${min} to ${max} entries`;
  return custom<readonly T[]>({
    ...meta,
    check: (path, value) => {
      if (!Array.isArray(value) || value.length < min || value.length > max) {
        throw invalidOption(path, range, value);
      }
      return value.map((item, index) => entry.check(`${path}[${index}]`, item));
    },
    range,
    json: { type: "array", items: entry.json, minItems: min, maxItems: max },
  }) as Node<readonly T[]> & Defaulted<M>;
}

/** The most tokens a prompt or an answer may have: far beyond any model's context. */
const MAX_TOKENS = 10_000_000;

/**
 * A {@link Range} of whole numbers from `least`: a number, or `{ min, max }` with `least <= min <= max`.
 *
 * @example
 * const maxTokens = range(1, { min: 16, max: 64 }, "tokens generated (`max_tokens`)");
 */
export function range(least: number, fallback: ResolvedRange, doc: string) {
  const bound = (from: number) => integer(from, MAX_TOKENS, { doc: "" });
  return custom<Range>({
    check: (path, value) => {
      if (typeof value === "number") return bound(least).check(path, value);
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw invalidOption(path, "a whole number or an object { min, max }", value);
      }
      rejectUnknownKeys(path, value, ["min", "max"]);
      const min = bound(least).check(`${path}.min`, (value as ResolvedRange).min);
      return { min, max: bound(min).check(`${path}.max`, (value as ResolvedRange).max) };
    },
    range: `${least} to ${MAX_TOKENS}, or \`{ min, max }\``,
    json: { anyOf: [{ type: "integer" }, { type: "object" }] },
    default: fallback,
    shownDefault: `\`{ ${fallback.min}..${fallback.max} }\``,
    doc,
  });
}

/** The range as `{ min, max }` (a plain number is both). */
export const span = (value: Range): ResolvedRange =>
  typeof value === "number" ? { min: value, max: value } : value;

/**
 * A string, `""` included.
 *
 * @example
 * const description = text({ default: "", doc: "free text" });
 */
export function text<M extends Meta<string>>(meta: M): Node<string> & Defaulted<M> {
  return custom<string>({
    ...meta,
    check: (path, value) => {
      if (typeof value === "string") return value;
      throw invalidOption(path, "a string", value);
    },
    range: "a string",
    json: { type: "string" },
  }) as Node<string> & Defaulted<M>;
}

/**
 * A number above `min` and at most `max`.
 *
 * @example
 * const loadFactor = above(1, 100, { default: 1.25, doc: "…" });
 */
export function above<M extends Meta<number>>(
  min: number,
  max: number,
  meta: M,
): Node<number> & Defaulted<M> {
  const range = `a number in (${min}, ${max}]`;
  return custom<number>({
    ...meta,
    check: (path, value) => {
      if (typeof value === "number" && value > min && value <= max) return value;
      throw invalidOption(path, range, value);
    },
    range,
    json: { type: "number", exclusiveMinimum: min, maximum: max },
  }) as Node<number> & Defaulted<M>;
}

/** `given` (already checked against `shape`) with the shape's defaults filled in. */
export const filled = <S extends Shape>(shape: S, given: InferShape<S> = {} as InferShape<S>): Resolved<S> =>
  withDefaults(shape, given) as Resolved<S>;

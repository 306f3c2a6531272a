import type { Node } from "@llm-scheduler/core";
import {
  custom,
  type Defaulted,
  type InferShape,
  integer,
  invalidOption,
  type Resolved,
  rejectUnknownKeys,
  type Shape,
  withDefaults,
} from "@llm-scheduler/core/kit";

/**
 * A whole-number amount: a plain number is fixed, `{ min, max }` is drawn uniformly from `min..max`
 * (both included) for each request.
 *
 * @example
 * const promptTokens: Range = { min: 20, max: 200 };
 */
export type Range = number | ResolvedRange;
/** A range after validation. */
export type ResolvedRange = { readonly min: number; readonly max: number };

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

/** The most tokens a prompt or an answer may have: far beyond any model's context. */
const MAX_TOKENS = 10_000_000;

/**
 * A {@link Range} of whole numbers from `least`: a number, or `{ min, max }` with `least <= min <= max`.
 * The check returns it as `{ min, max }` (a plain number is both).
 *
 * @example
 * const maxTokens = range(1, 16, 64, "tokens generated (`max_tokens`)");
 */
export function range(least: number, min: number, max: number, doc: string) {
  const bound = (from: number) => integer(from, MAX_TOKENS, { doc: "" });
  return custom<Range>({
    check: (path, value): ResolvedRange => {
      if (typeof value === "number") {
        const fixed = bound(least).check(path, value);
        return { min: fixed, max: fixed };
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw invalidOption(path, "a whole number or an object { min, max }", value);
      }
      rejectUnknownKeys(path, value, ["min", "max"]);
      const low = bound(least).check(`${path}.min`, (value as ResolvedRange).min);
      return { min: low, max: bound(low).check(`${path}.max`, (value as ResolvedRange).max) };
    },
    range: `${least} to ${MAX_TOKENS}, or \`{ min, max }\``,
    json: { anyOf: [{ type: "integer" }, { type: "object" }] },
    default: { min, max },
    shownDefault: `\`{ ${min}..${max} }\``,
    doc,
  });
}

/**
 * A section as its checks leave it, with its defaults: each {@link Range} as `{ min, max }`, each
 * `"Infinity"` as the number.
 */
export type Checked<S extends Shape> = {
  readonly [K in keyof S]-?: [Range] extends [Resolved<S>[K]]
    ? ResolvedRange
    : Exclude<Resolved<S>[K], "Infinity">;
};

/**
 * `given` (checked against `shape`) with the shape's defaults filled in, typed as {@link Checked}.
 *
 * @example
 * checked(GOAL, {}).interactiveWaitP95Ms; // 1000
 */
export const checked = <S extends Shape>(shape: S, given: InferShape<S> = {} as InferShape<S>): Checked<S> =>
  withDefaults(shape, given) as Checked<S>;

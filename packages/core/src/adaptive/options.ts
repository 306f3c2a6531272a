import {
  custom,
  duration,
  fraction,
  type InferShape,
  integer,
  number,
  object,
  oneOf,
  positive,
  type Resolved,
  required,
  withDefaults,
} from "../schema/schema.js";
import { integerIn, invalidOption, MAX_CONCURRENCY } from "../validate.js";

const CONCURRENCY_RANGE = {
  initial: integer(1, MAX_CONCURRENCY, { doc: "the limit it starts from, `min` to `max` (default `min`)" }),
  min: required(integer(1, MAX_CONCURRENCY, { doc: "the lowest limit (raised to the sum of `reserved`)" })),
  max: required(integer(1, MAX_CONCURRENCY, { doc: "the highest limit, at least `min`" })),
};

/** `maxConcurrency` as a range: the scheduler finds the limit itself, between `min` and `max`. */
export type ConcurrencyRange = InferShape<typeof CONCURRENCY_RANGE>;

const FIXED_LIMIT = integer(1, MAX_CONCURRENCY, { doc: "a fixed limit" });
const RANGE = object(CONCURRENCY_RANGE, { doc: "an adaptive limit's range" });

/** `maxConcurrency`: a fixed limit, or a range the adaptive limit moves in (cross-checked by {@link resolveLimit}). */
export const LIMIT_OPTION = custom<number | ConcurrencyRange>({
  check: (path, value) =>
    typeof value === "object" && value !== null ? RANGE.check(path, value) : FIXED_LIMIT.check(path, value),
  range: `${FIXED_LIMIT.range}, or \`{ initial, min, max }\` (adaptive)`,
  json: { anyOf: [FIXED_LIMIT.json, RANGE.json] },
  default: 8,
  doc: "requests (or cost units) in flight upstream at once; a range lets the scheduler find the limit",
});

/** Tunables of the adaptive limit (see docs/decisions/0036-adaptive-limit-controller.md). */
const ADAPTIVE = {
  controller: oneOf(["delay", "aimd"], {
    default: "delay",
    doc: '`"delay"` holds the limit just under the knee (cuts in proportion to the excess, remembers the knee); `"aimd"` adds a step per good window and multiplies by `latencyFactor` after a slow one',
  }),
  probeMs: number(1_000, 86_400_000, {
    default: 30_000,
    doc: '`"delay"` only: after a cut, increases stop one below the knee for this long, then try it again',
  }),
  windowMs: duration({
    default: 1_000,
    doc: "a window of measurements closes after at least this long (and `minSamples` samples)",
  }),
  minSamples: integer(1, 100_000, {
    default: 10,
    doc: "a window needs this many latency samples (and ended tasks) to count",
  }),
  increaseStep: integer(1, 1_000, {
    default: 1,
    doc: "added to the limit after a window that used it fully, with no overload and latency near its baseline",
  }),
  overloadFactor: fraction({
    default: 0.75,
    doc: "the limit is multiplied by this on an overload (503, connection error, run timeout)",
  }),
  latencyFactor: fraction({
    default: 0.9,
    doc: "the limit is multiplied by this after a window whose latency was over `latencyTolerance` times its baseline",
  }),
  latencyTolerance: number(1.01, 100, {
    infinite: true,
    shownRange: "a number from 1.01 to 100, or Infinity (no latency guard)",
    default: 1.15,
    doc: "a window's median latency above this many times its baseline counts as overload",
  }),
  cooldownMs: duration({
    zero: true,
    default: 2_000,
    doc: "after a decrease, no other change for this long",
  }),
  baselineWeight: positive(1, {
    default: 0.005,
    doc: "how fast the latency baseline rises toward a window's median (it falls at once): each window's weight",
  }),
};

/** Tunables of the adaptive limit (every field optional; the defaults suit LLM servers). */
export type AdaptiveOptions = InferShape<typeof ADAPTIVE>;

/** The tunables as an option node: checked field by field, merged field by field by `update()`. */
export const ADAPTIVE_OPTION = object(ADAPTIVE, {
  shownDefault: "the defaults of its fields",
  doc: "tunables of the adaptive limit; only with `maxConcurrency: { initial, min, max }`",
});

/** The adaptive limit's range and tunables, validated; the limit never drops below `floor`, `max(min, sum of reserved)`. */
export type ResolvedAdaptive = Resolved<typeof ADAPTIVE> &
  Required<ConcurrencyRange> & { readonly floor: number };

/**
 * Reads `maxConcurrency` (a number: a fixed limit; `{ initial, min, max }`: adaptive) and `adaptive`
 * (tunables, only with the range form), both checked by their nodes already: what remains is how they
 * bound each other. Returns the highest the limit can go (`ceiling`: priorities' `maxConcurrency` are
 * checked against it) and, when adaptive, the range and tunables before the reserved floor is known
 * (see {@link withFloor}).
 *
 * @example
 * resolveLimit({ initial: 8, min: 2, max: 64 }, { windowMs: 2_000 }).adaptive?.max; // 64
 */
export function resolveLimit(
  maxConcurrency: number | ConcurrencyRange = LIMIT_OPTION.default,
  adaptive: AdaptiveOptions | undefined = undefined,
) {
  if (typeof maxConcurrency === "number") {
    if (adaptive === undefined) return { ceiling: maxConcurrency, adaptive: null };
    throw invalidOption("adaptive", "no value unless `maxConcurrency` is `{ initial, min, max }`", adaptive);
  }
  const { min, max, initial = min } = maxConcurrency;
  integerIn("maxConcurrency.max", max, min, MAX_CONCURRENCY);
  integerIn("maxConcurrency.initial", initial, min, max);
  const tunables = withDefaults(ADAPTIVE, adaptive ?? {});
  return { ceiling: max, adaptive: { initial, min, max, ...tunables } };
}

/** The adaptive settings with the floor set by the priorities' reserved slots (`reservedTotal <= max`). */
export function withFloor(
  adaptive: Omit<ResolvedAdaptive, "floor">,
  reservedTotal: number,
): ResolvedAdaptive {
  const floor = Math.max(adaptive.min, reservedTotal);
  return { ...adaptive, floor, initial: Math.max(adaptive.initial, floor) };
}

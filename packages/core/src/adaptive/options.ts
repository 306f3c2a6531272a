import {
  custom,
  duration as durationOption,
  type InferShape,
  integer,
  number,
  object,
  withDefaults,
} from "../schema/schema.js";
import {
  definedOnly,
  duration,
  integerIn,
  invalidOption,
  MAX_CONCURRENCY,
  MAX_DURATION_MS,
  numberIn,
  plainObject,
  rejectUnknownKeys,
} from "../validate.js";

/** `maxConcurrency` as a range: the scheduler finds the limit itself, between `min` and `max`. */
export interface ConcurrencyRange {
  /** The limit it starts from: an integer from `min` to `max`. @default `min` */
  readonly initial?: number;
  /** The lowest limit (raised to the priorities' `reserved` sum when that is higher): an integer from 1. */
  readonly min: number;
  /** The highest limit: an integer from `min` to 1,000,000. */
  readonly max: number;
}

/** `value` when it is a number above 0 and below 1 (a factor the limit is multiplied by). */
function below1(field: string, value: unknown): number {
  const factor = numberIn(field, value, 0, 1);
  if (factor === 0 || factor === 1) throw invalidOption(field, "a number above 0 and below 1", value);
  return factor;
}

const FACTOR_JSON = { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 };

/**
 * Tunables of the adaptive limit (`adaptive`, only with `maxConcurrency: { initial, min, max }`), declared
 * once: checks, defaults, the README table and the JSON Schema come from here. See
 * docs/decisions/0036-adaptive-limit-controller.md.
 */
export const ADAPTIVE = {
  controller: custom<"delay" | "aimd">({
    check: (path, value) => {
      if (value === "delay" || value === "aimd") return value;
      throw invalidOption(path, '`"delay"` or `"aimd"`', value);
    },
    range: '"delay" or "aimd"',
    json: { enum: ["delay", "aimd"] },
    default: "delay",
    doc: '`"delay"` holds the limit just under the knee (cuts in proportion to the excess, remembers the knee); `"aimd"` adds a step per good window and multiplies by `latencyFactor` after a slow one',
  }),
  probeMs: number(1_000, 86_400_000, {
    default: 30_000,
    doc: '`"delay"` only: after a cut, increases stop one below the knee for this long, then try it again',
  }),
  windowMs: durationOption({
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
  overloadFactor: custom<number>({
    check: below1,
    range: "a number above 0 and below 1",
    json: FACTOR_JSON,
    default: 0.75,
    doc: "the limit is multiplied by this on an overload (503, connection error, run timeout)",
  }),
  latencyFactor: custom<number>({
    check: below1,
    range: "a number above 0 and below 1",
    json: FACTOR_JSON,
    default: 0.9,
    doc: "the limit is multiplied by this after a window whose latency was over `latencyTolerance` times its baseline",
  }),
  latencyTolerance: custom<number>({
    check: (path, value) => (value === Number.POSITIVE_INFINITY ? value : numberIn(path, value, 1.01, 100)),
    range: "a number from 1.01 to 100, or Infinity (no latency guard)",
    json: { anyOf: [{ type: "number", minimum: 1.01, maximum: 100 }, { const: "Infinity" }] },
    default: 1.15,
    doc: "a window's median latency above this many times its baseline counts as overload",
  }),
  cooldownMs: custom<number>({
    check: (path, value) => (value === 0 ? 0 : duration(path, value)),
    range: "0, or a duration",
    json: {
      anyOf: [{ type: "number", minimum: 0, maximum: MAX_DURATION_MS }, { const: "Infinity" }],
    },
    default: 2_000,
    doc: "after a decrease, no other change for this long",
  }),
  baselineWeight: custom<number>({
    check: (path, value) => {
      const weight = numberIn(path, value, 0, 1);
      if (weight === 0) throw invalidOption(path, "a number above 0 and at most 1", 0);
      return weight;
    },
    range: "a number in (0, 1]",
    json: { type: "number", exclusiveMinimum: 0, maximum: 1 },
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

/** The adaptive limit's bounds and tunables, validated. */
export interface ResolvedAdaptive {
  readonly controller: "delay" | "aimd";
  readonly probeMs: number;
  readonly initial: number;
  readonly min: number;
  readonly max: number;
  /** `max(min, sum of reserved)`: the limit never drops below it. */
  readonly floor: number;
  readonly windowMs: number;
  readonly minSamples: number;
  readonly increaseStep: number;
  readonly overloadFactor: number;
  readonly latencyFactor: number;
  readonly latencyTolerance: number;
  readonly cooldownMs: number;
  readonly baselineWeight: number;
}

const RANGE_KEYS: readonly (keyof ConcurrencyRange)[] = ["initial", "min", "max"];

/** What `maxConcurrency` and `adaptive` resolve to: the limit to start from and, when adaptive, its range. */
export interface ResolvedLimit {
  /** The starting limit (the fixed limit when not adaptive). */
  readonly maxConcurrency: number;
  /** The highest the limit can go: priorities' `maxConcurrency` are checked against it. */
  readonly ceiling: number;
  /** The range and tunables before the reserved floor is known (see {@link withFloor}). */
  readonly adaptive: Omit<ResolvedAdaptive, "floor"> | null;
}

function tunables(raw: unknown): Omit<ResolvedAdaptive, "floor" | "initial" | "min" | "max"> {
  const given = ADAPTIVE_OPTION.check("adaptive", raw ?? {});
  // Every field has a default, so every field is set.
  return withDefaults(ADAPTIVE, given) as Omit<ResolvedAdaptive, "floor" | "initial" | "min" | "max">;
}

/**
 * Reads `maxConcurrency` (a number: a fixed limit; `{ initial, min, max }`: adaptive) and `adaptive`
 * (tunables, only with the range form).
 *
 * @example
 * resolveLimit({ initial: 8, min: 2, max: 64 }, { windowMs: 2_000 }).adaptive?.max; // 64
 */
export function resolveLimit(maxConcurrency: unknown, adaptive: unknown): ResolvedLimit {
  if (typeof maxConcurrency !== "object" || maxConcurrency === null) {
    if (adaptive !== undefined) {
      throw invalidOption(
        "adaptive",
        "no value unless `maxConcurrency` is `{ initial, min, max }`",
        adaptive,
      );
    }
    const fixed = integerIn("maxConcurrency", maxConcurrency ?? 8, 1, MAX_CONCURRENCY);
    return { maxConcurrency: fixed, ceiling: fixed, adaptive: null };
  }
  const range = plainObject("maxConcurrency", maxConcurrency);
  rejectUnknownKeys("maxConcurrency", range, RANGE_KEYS);
  const given = definedOnly(range as Partial<ConcurrencyRange>);
  const min = integerIn("maxConcurrency.min", given.min, 1, MAX_CONCURRENCY);
  const max = integerIn("maxConcurrency.max", given.max, min, MAX_CONCURRENCY);
  const initial = integerIn("maxConcurrency.initial", given.initial ?? min, min, max);
  return { maxConcurrency: initial, ceiling: max, adaptive: { initial, min, max, ...tunables(adaptive) } };
}

/** The adaptive settings with the floor set by the priorities' reserved slots (`reservedTotal <= max`). */
export function withFloor(
  adaptive: Omit<ResolvedAdaptive, "floor">,
  reservedTotal: number,
): ResolvedAdaptive {
  const floor = Math.max(adaptive.min, reservedTotal);
  return { ...adaptive, floor, initial: Math.max(adaptive.initial, floor) };
}

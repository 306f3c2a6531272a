import {
  definedOnly,
  duration,
  integerIn,
  invalidOption,
  MAX_CONCURRENCY,
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

/** Tunables of the adaptive limit (every field optional; the defaults suit LLM servers). */
export interface AdaptiveOptions {
  /**
   * How the limit moves: `"delay"` holds it just under the concurrency where latency starts to grow
   * (cut in proportion to the excess, the knee remembered and probed again every `probeMs`); `"aimd"`
   * adds a step after each good window and multiplies by `latencyFactor` after a slow one (a sawtooth
   * around the knee). See docs/decisions/0036-adaptive-limit-controller.md.
   * @default "delay"
   */
  readonly controller?: "delay" | "aimd";
  /**
   * `"delay"` only: after a cut, increases stop one below the limit that was cut (the knee found) for
   * this long, then try it again (to follow a capacity that grew). From 1 s to 1 day.
   * @default 30_000
   */
  readonly probeMs?: number;
  /**
   * A window of measurements closes after at least this long (and `minSamples` samples); then the limit
   * may rise by `increaseStep` or drop on slow latency. Above 0 and at most 365 days.
   * @default 1_000
   */
  readonly windowMs?: number;
  /** A window needs this many latency samples (and ended tasks) to count: an integer from 1 to 100,000. @default 10 */
  readonly minSamples?: number;
  /** Added to the limit after a window that used it fully, with no overload and latency near its baseline: an integer from 1 to 1,000. @default 1 */
  readonly increaseStep?: number;
  /** The limit is multiplied by this on an overload (503, connection error, run timeout): above 0 and below 1. @default 0.75 */
  readonly overloadFactor?: number;
  /** The limit is multiplied by this after a window whose latency was over `latencyTolerance` times its baseline: above 0 and below 1. @default 0.9 */
  readonly latencyFactor?: number;
  /**
   * A window's median latency (time to first byte, or run time per output token) above this many times
   * its baseline counts as overload: from 1.01 to 100, or `Infinity` to turn the latency guard off.
   * @default 1.15
   */
  readonly latencyTolerance?: number;
  /** After a decrease, no other change for this long: 0 to 365 days. @default 2_000 */
  readonly cooldownMs?: number;
  /**
   * How fast the latency baseline rises toward a window's median (it falls at once): a number above 0
   * and at most 1 (the weight of each window).
   * @default 0.005
   */
  readonly baselineWeight?: number;
}

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
const ADAPTIVE_KEYS: readonly (keyof AdaptiveOptions)[] = [
  "controller",
  "probeMs",
  "windowMs",
  "minSamples",
  "increaseStep",
  "overloadFactor",
  "latencyFactor",
  "latencyTolerance",
  "cooldownMs",
  "baselineWeight",
];

/** What `maxConcurrency` and `adaptive` resolve to: the limit to start from and, when adaptive, its range. */
export interface ResolvedLimit {
  /** The starting limit (the fixed limit when not adaptive). */
  readonly maxConcurrency: number;
  /** The highest the limit can go: priorities' `maxConcurrency` are checked against it. */
  readonly ceiling: number;
  /** The range and tunables before the reserved floor is known (see {@link withFloor}). */
  readonly adaptive: Omit<ResolvedAdaptive, "floor"> | null;
}

function below1(field: string, value: unknown): number {
  const factor = numberIn(field, value, 0, 1);
  if (factor === 0 || factor === 1) throw invalidOption(field, "a number above 0 and below 1", value);
  return factor;
}

function tunables(raw: unknown): Omit<ResolvedAdaptive, "floor" | "initial" | "min" | "max"> {
  const object = plainObject("adaptive", raw ?? {});
  rejectUnknownKeys("adaptive", object, ADAPTIVE_KEYS);
  const given = definedOnly(object as AdaptiveOptions);
  const tolerance = given.latencyTolerance ?? 1.15;
  const weight = numberIn("adaptive.baselineWeight", given.baselineWeight ?? 0.005, 0, 1);
  if (weight === 0) throw invalidOption("adaptive.baselineWeight", "a number above 0 and at most 1", 0);
  const controller = given.controller ?? "delay";
  if (controller !== "delay" && controller !== "aimd") {
    throw invalidOption("adaptive.controller", '`"delay"` or `"aimd"`', controller);
  }
  return {
    controller,
    probeMs: numberIn("adaptive.probeMs", given.probeMs ?? 30_000, 1_000, 86_400_000),
    windowMs: duration("adaptive.windowMs", given.windowMs ?? 1_000),
    minSamples: integerIn("adaptive.minSamples", given.minSamples ?? 10, 1, 100_000),
    increaseStep: integerIn("adaptive.increaseStep", given.increaseStep ?? 1, 1, 1_000),
    overloadFactor: below1("adaptive.overloadFactor", given.overloadFactor ?? 0.75),
    latencyFactor: below1("adaptive.latencyFactor", given.latencyFactor ?? 0.9),
    latencyTolerance:
      tolerance === Number.POSITIVE_INFINITY
        ? tolerance
        : numberIn("adaptive.latencyTolerance", tolerance, 1.01, 100),
    cooldownMs: given.cooldownMs === 0 ? 0 : duration("adaptive.cooldownMs", given.cooldownMs ?? 2_000),
    baselineWeight: weight,
  };
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

import {
  definedOnly,
  integerIn,
  MAX_DURATION_MS,
  numberIn,
  plainObject,
  positiveNumber,
  rejectUnknownKeys,
} from "../validate.js";

/**
 * How the wait-target controller works (see `PriorityOptions.targetWaitMs`). Every field is optional;
 * the defaults suit chat in front of an LLM server.
 */
export interface WaitTargetOptions {
  /**
   * Length of one measuring window: the p95 wait of each priority with a target is judged once per
   * window. Above 0 and at most one hour, in ms.
   * @default 5_000
   */
  readonly windowMs?: number;
  /**
   * A window is judged only once it holds at least this many starts of the priority (a window with
   * fewer keeps collecting): an integer from 1 to 100,000.
   * @default 20
   */
  readonly minSamples?: number;
  /**
   * Windows in a row with every wait at most half the target before one step of share is given back:
   * an integer from 1 to 1,000.
   * @default 3
   */
  readonly calmWindows?: number;
  /**
   * The effective weight stays at most this many times the configured one: a number from 1 to 10,000.
   * @default 64
   */
  readonly maxBoost?: number;
  /**
   * The effective `reserved` of a priority with a target stays at most this share of the scheduler's
   * `maxConcurrency` (rounded down), and all priorities' reserves together at most `maxConcurrency`.
   * A number from 0 to 1.
   * @default 0.75
   */
  readonly maxReservedShare?: number;
}

/** The controller's settings after defaults and validation. */
export interface ResolvedWaitTargets {
  /** `targetWaitMs` by priority name, for the priorities that have one. */
  readonly targets: ReadonlyMap<string, number>;
  readonly windowMs: number;
  readonly minSamples: number;
  readonly calmWindows: number;
  readonly maxBoost: number;
  readonly maxReservedShare: number;
}

const KEYS: readonly (keyof WaitTargetOptions)[] = [
  "windowMs",
  "minSamples",
  "calmWindows",
  "maxBoost",
  "maxReservedShare",
];

/** The largest `targetWaitMs` and `windowMs`: one hour. */
const MAX_TARGET_MS = 3_600_000;

/**
 * Validates `waitTargets` and each priority's `targetWaitMs` (the priorities' other fields are checked
 * elsewhere); throws `INVALID_OPTION`.
 *
 * @example
 * resolveWaitTargets({ windowMs: 2_000 }, { interactive: { targetWaitMs: 500 }, batch: {} });
 */
export function resolveWaitTargets(
  raw: unknown,
  priorities: Readonly<Record<string, unknown>>,
): ResolvedWaitTargets {
  const object = plainObject("waitTargets", raw ?? {});
  rejectUnknownKeys("waitTargets", object, KEYS);
  const given = definedOnly(object as WaitTargetOptions);
  const targets = new Map<string, number>();
  for (const [name, fields] of Object.entries(priorities)) {
    const value = (fields as { targetWaitMs?: unknown } | null)?.targetWaitMs;
    if (value === undefined) continue;
    targets.set(name, positiveNumber(`priorities.${name}.targetWaitMs`, value, MAX_TARGET_MS));
  }
  return {
    targets,
    windowMs: positiveNumber(
      "waitTargets.windowMs",
      given.windowMs ?? 5_000,
      Math.min(MAX_TARGET_MS, MAX_DURATION_MS),
    ),
    minSamples: integerIn("waitTargets.minSamples", given.minSamples ?? 20, 1, 100_000),
    calmWindows: integerIn("waitTargets.calmWindows", given.calmWindows ?? 3, 1, 1_000),
    maxBoost: numberIn("waitTargets.maxBoost", given.maxBoost ?? 64, 1, 10_000),
    maxReservedShare: numberIn("waitTargets.maxReservedShare", given.maxReservedShare ?? 0.75, 0, 1),
  };
}

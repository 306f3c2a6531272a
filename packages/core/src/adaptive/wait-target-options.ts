import { WAIT_TARGETS } from "../option-schema.js";
import { withDefaults } from "../schema/schema.js";

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

/**
 * The controller's settings from options the schema has checked (`waitTargets` and each priority's
 * `targetWaitMs`, see option-schema.ts), with the declared defaults under what is not given.
 *
 * @example
 * resolveWaitTargets({ windowMs: 2_000 }, { interactive: { targetWaitMs: 500 }, batch: {} });
 */
export function resolveWaitTargets(
  checked: WaitTargetOptions | undefined,
  priorities: Readonly<Record<string, { readonly targetWaitMs?: number | undefined }>>,
): ResolvedWaitTargets {
  const set = withDefaults(WAIT_TARGETS, checked ?? {}) as Required<WaitTargetOptions>;
  const targets = new Map<string, number>();
  for (const [name, fields] of Object.entries(priorities)) {
    if (fields.targetWaitMs !== undefined) targets.set(name, fields.targetWaitMs);
  }
  return {
    targets,
    windowMs: set.windowMs,
    minSamples: set.minSamples,
    calmWindows: set.calmWindows,
    maxBoost: set.maxBoost,
    maxReservedShare: set.maxReservedShare,
  };
}

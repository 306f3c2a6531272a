import type { ResolvedAdaptive } from "./options.js";

/** What a closed window says: its slowest latency measure against that measure's baseline, and demand. */
export interface WindowReading {
  /** The slowest measure's median over its baseline (1 when at it); undefined with no measure ready. */
  readonly ratio: number | undefined;
  /** That measure's median and baseline, ms (for the `limit` event). */
  readonly medianMs: number;
  readonly baselineMs: number;
  /** The window used the limit fully (a start waited, or nearly all of it ran). */
  readonly fullUse: boolean;
}

/** A policy's answer: the limit to go to, and why; undefined keeps the limit. */
export interface PolicyMove {
  readonly target: number;
  readonly reason: "increase" | "latency";
}

/**
 * How an adaptive limit moves (see `adaptive.controller`): the measuring, windows, cool-downs and the
 * shared store's proposals are the controller's; a policy only turns readings into targets.
 */
export interface LimitPolicy {
  /**
   * True while the next window judges a probe (a limit already found too slow, tried again): it then
   * closes with a third of `minSamples`, since a wrong "slow" only keeps the knee already known.
   */
  readonly probing: boolean;
  /** A window closed at `now` with the limit at `limit`. */
  afterWindow(limit: number, reading: WindowReading, now: number): PolicyMove | undefined;
  /** An overload (503, connection error, run timeout) at `limit`: the target, below `limit`. */
  afterOverload(limit: number, now: number): number;
  /** New tunables from `update()`. */
  reconfigure(config: ResolvedAdaptive): void;
}

/** Within this ratio of the limit of the last decrease, increases go one step at a time. */
const NEAR_CUT = 0.8;

/**
 * The increase step shared by both policies: `increaseStep`, doubled after every three increases in a
 * row, never more than an eighth of the limit (so a limit far below a new capacity catches up in a few
 * windows), and only `increaseStep` near `cutFrom`, the limit of the last decrease (0: none yet).
 */
export class IncreaseSteps {
  /** Increases in a row since the last decrease. */
  #streak = 0;
  cutFrom = 0;

  next(limit: number, increaseStep: number): number {
    const cut = this.cutFrom;
    if (limit >= cut * NEAR_CUT && limit <= cut / NEAR_CUT) return increaseStep;
    const grown = increaseStep * 2 ** Math.floor(this.#streak / 3);
    this.#streak++;
    return Math.min(grown, Math.max(increaseStep, Math.ceil(limit / 8)));
  }

  decreased(from: number): void {
    this.#streak = 0;
    this.cutFrom = from;
  }
}

/**
 * Additive increase, multiplicative decrease with a latency guard (`adaptive.controller: "aimd"`): a
 * window whose median is over `latencyTolerance` times its baseline multiplies the limit by
 * `latencyFactor` (or by `tolerance / ratio` when lower, down to `overloadFactor`); a window that used
 * the limit fully without it adds a step ({@link IncreaseSteps}); an overload multiplies it by
 * `overloadFactor`.
 *
 * @example
 * const aimd = new AimdPolicy(config);
 * aimd.afterOverload(16, 0); // 12 with the default overloadFactor 0.75
 */
export class AimdPolicy implements LimitPolicy {
  readonly probing = false;
  #config: ResolvedAdaptive;
  readonly #steps = new IncreaseSteps();

  constructor(config: ResolvedAdaptive) {
    this.#config = config;
  }

  reconfigure(config: ResolvedAdaptive): void {
    this.#config = config;
  }

  afterWindow(limit: number, reading: WindowReading): PolicyMove | undefined {
    const { latencyTolerance, latencyFactor, overloadFactor, increaseStep, max } = this.#config;
    const { ratio, fullUse } = reading;
    if (ratio !== undefined && ratio > latencyTolerance) {
      // Far over the tolerance, cut in proportion (at most as an overload does): fewer steps back.
      const factor = Math.max(overloadFactor, Math.min(latencyFactor, latencyTolerance / ratio));
      this.#steps.decreased(limit);
      return { target: Math.floor(limit * factor), reason: "latency" };
    }
    if (!fullUse) return undefined;
    return { target: Math.min(max, limit + this.#steps.next(limit, increaseStep)), reason: "increase" };
  }

  afterOverload(limit: number): number {
    this.#steps.decreased(limit);
    return Math.floor(limit * this.#config.overloadFactor);
  }
}

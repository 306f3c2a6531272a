import type { LatencyTrack } from "./latency.js";
import type { ResolvedAdaptive } from "./options.js";

/** What a closed window says: its slowest latency measure against that measure's baseline, and demand. */
export interface WindowReading {
  /** The slowest measure's median over its baseline (1 when at it); undefined with no measure ready. */
  readonly ratio: number | undefined;
  /** That measure's median and baseline, ms (for the `limit` event). */
  readonly medianMs: number;
  readonly baselineMs: number;
  /** That measure (undefined with none), so that its medians can be compared across windows. */
  readonly measure?: LatencyTrack | undefined;
  /** The window used the limit fully (a start waited, or nearly all of it ran). */
  readonly fullUse: boolean;
  /**
   * The lowest and highest load the upstream reported of itself in the window (`Scheduler.upstreamLoad`:
   * the work it holds over what it runs at once); undefined when it reported none.
   */
  readonly upstreamLoad?: { readonly lowest: number; readonly highest: number } | undefined;
}

/** A policy's answer: the limit to go to, and why; undefined keeps the limit. */
export interface PolicyMove {
  readonly target: number;
  readonly reason: "increase" | "latency" | "upstream";
}

/**
 * The share of the limit the upstream's own load leaves (`1 / load`, the lowest reading) when it stayed
 * over 1 through the window (it queued all along); undefined otherwise.
 *
 * @example
 * upstreamCut({ ratio: undefined, medianMs: 0, baselineMs: 0, fullUse: true, upstreamLoad: { lowest: 1.25, highest: 1.5 } }); // 0.8
 */
export function upstreamCut(reading: WindowReading): number | undefined {
  const load = reading.upstreamLoad;
  return load !== undefined && load.lowest > 1 ? 1 / load.lowest : undefined;
}

/**
 * A window shows demand for more: it used the limit fully, or the upstream said all along that it had
 * room (no reading above 1): then the limit may grow even while the router leaves part of it unused.
 */
export function wantsMore(reading: WindowReading): boolean {
  const load = reading.upstreamLoad;
  return reading.fullUse || (load !== undefined && load.highest <= 1);
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
 * `latencyFactor` (or by `tolerance / ratio` when lower, down to `overloadFactor`), and so does a
 * window through which the upstream said it queued ({@link upstreamCut}); a window that used the limit
 * fully, or whose upstream said it had room ({@link wantsMore}), adds a step ({@link IncreaseSteps}); an
 * overload multiplies it by `overloadFactor`.
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
    const { ratio } = reading;
    const slow = ratio !== undefined && ratio > latencyTolerance;
    const cut = upstreamCut(reading);
    if (slow || cut !== undefined) {
      // Far over the tolerance, cut in proportion (at most as an overload does): fewer steps back.
      const excess = Math.min(slow ? latencyTolerance / ratio : 1, cut ?? 1);
      const factor = Math.max(overloadFactor, Math.min(latencyFactor, excess));
      this.#steps.decreased(limit);
      return { target: Math.floor(limit * factor), reason: slow ? "latency" : "upstream" };
    }
    if (!wantsMore(reading)) return undefined;
    return { target: Math.min(max, limit + this.#steps.next(limit, increaseStep)), reason: "increase" };
  }

  afterOverload(limit: number): number {
    this.#steps.decreased(limit);
    return Math.floor(limit * this.#config.overloadFactor);
  }
}

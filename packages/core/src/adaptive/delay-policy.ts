import type { ResolvedAdaptive } from "./options.js";
import {
  IncreaseSteps,
  type LimitPolicy,
  type PolicyMove,
  upstreamCut,
  type WindowReading,
  wantsMore,
} from "./policy.js";

/** A latency cut never goes below this share of the limit in one step. */
const DEEPEST_CUT = 0.5;

/** The measure that read a limit slow, and its median there. */
type SlowRead = Pick<WindowReading, "measure" | "medianMs">;

/**
 * The delay-based policy (`adaptive.controller: "delay"`, the default), after TCP Vegas: the limit is
 * the concurrency just below the one where latency starts to grow. A window whose slowest median is
 * over `latencyTolerance` times its baseline cuts the limit in proportion to the excess (`limit ×
 * tolerance / ratio`, at least one slot, at most half) and remembers that limit as the ceiling, the
 * knee found (or back to the last limit that read well, when that is higher: one step past it, the
 * excess says more about the knee's steepness than about the distance to it). A window through which
 * the upstream said it queued ({@link upstreamCut}) cuts to `limit / load` and sets the knee the same way
 * (its own count of its queue needs no going back). A window that used the limit fully, or whose
 * upstream said it had room ({@link wantsMore}), without either adds a step ({@link IncreaseSteps}), but
 * stops one below the ceiling. The ceiling is tried again `probeMs` after it was found, so that a
 * grown capacity is found too, while a steady one is probed above its knee only that often; a probe
 * that passes forgets the knee, and the steps grow again. A knee found slow passes only when the
 * measure that found it reads faster there than it did then: the baseline rises slowly toward the
 * latency of the limit just below the knee, and one slot up then reads within the tolerance of it
 * though the capacity did not change (a probe that reads no faster keeps the knee). An overload (503,
 * connection error, run timeout) multiplies the limit by `overloadFactor` and sets the ceiling the
 * same way.
 *
 * @example
 * const delay = new DelayPolicy(config);
 * delay.afterWindow(25, { ratio: 1.3, medianMs: 390, baselineMs: 300, fullUse: true }, 0); // { target: 22, reason: "latency" }
 */
export class DelayPolicy implements LimitPolicy {
  #config: ResolvedAdaptive;
  readonly #steps = new IncreaseSteps();
  /** The lowest limit found too slow or overloaded (0: none), and when. */
  #ceiling = 0;
  #ceilingAt = Number.NEGATIVE_INFINITY;
  #probing = false;
  /** The limit of the last window read and not slow (0: none). */
  #lastGood = 0;
  /** The measure that read the ceiling slow, and its median there (undefined: not found by latency). */
  #kneeRead: SlowRead | undefined;

  constructor(config: ResolvedAdaptive) {
    this.#config = config;
  }

  get probing(): boolean {
    return this.#probing;
  }

  reconfigure(config: ResolvedAdaptive): void {
    this.#config = config;
  }

  afterWindow(limit: number, reading: WindowReading, now: number): PolicyMove | undefined {
    const { latencyTolerance, increaseStep, max, probeMs } = this.#config;
    const { ratio } = reading;
    const probed = this.#probing;
    this.#probing = false;
    if (ratio !== undefined && ratio > latencyTolerance) {
      this.#found(limit, now, { measure: reading.measure, medianMs: reading.medianMs });
      const factor = Math.max(DEEPEST_CUT, Math.min(latencyTolerance / ratio, upstreamCut(reading) ?? 1));
      // Just past a limit that read well, go back to it: a steep knee overstates the excess.
      const back = this.#lastGood < limit ? this.#lastGood : 0;
      return { target: Math.min(limit - 1, Math.max(back, Math.floor(limit * factor))), reason: "latency" };
    }
    const cut = upstreamCut(reading);
    if (cut !== undefined) {
      // The upstream counted its own queue: the limit where it stops queueing is known, not guessed.
      this.#found(limit, now);
      return {
        target: Math.min(limit - 1, Math.floor(limit * Math.max(DEEPEST_CUT, cut))),
        reason: "upstream",
      };
    }
    if (probed && limit === this.#ceiling && this.#noFaster(reading)) {
      // Within the tolerance only of a baseline that rose since: the capacity did not grow.
      this.#found(limit, now, this.#kneeRead);
      return { target: limit - 1, reason: "latency" };
    }
    if (ratio !== undefined) this.#lastGood = limit;
    if (!wantsMore(reading)) return undefined;
    if (this.#ceiling !== 0 && limit >= this.#ceiling) {
      this.#ceiling = 0; // the knee was passed without harm: capacity grew
      this.#steps.cutFrom = 0;
    }
    if (this.#ceiling !== 0 && now - this.#ceilingAt >= probeMs) {
      this.#probing = true;
      return { target: this.#ceiling, reason: "increase" };
    }
    let target = Math.min(max, limit + this.#steps.next(limit, increaseStep));
    if (this.#ceiling !== 0) target = Math.min(target, this.#ceiling - 1);
    return target > limit ? { target, reason: "increase" } : undefined;
  }

  afterOverload(limit: number, now: number): number {
    this.#found(limit, now);
    return Math.floor(limit * this.#config.overloadFactor);
  }

  /** `limit` was found too slow (as `read` says, when a latency reading found it) or overloaded. */
  #found(limit: number, now: number, read?: SlowRead): void {
    this.#steps.decreased(limit);
    this.#ceiling = limit;
    this.#ceilingAt = now;
    this.#kneeRead = read;
  }

  /** A probe's reading: the measure that found the knee reads no faster there than it did then. */
  #noFaster(reading: WindowReading): boolean {
    const read = this.#kneeRead;
    if (read === undefined || reading.ratio === undefined) return false;
    return read.measure === reading.measure && reading.medianMs >= read.medianMs;
  }
}

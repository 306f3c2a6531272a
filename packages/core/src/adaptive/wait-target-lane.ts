import type { ResolvedWaitTargets } from "../options.js";
import { WaitSketch } from "../wait-sketch.js";

/** What one judged window decided for a priority. */
export type WaitTargetStep = "raise" | "lower" | "hold";

/** A judged window: its p95 and largest wait, and the step taken. */
export interface WaitTargetVerdict {
  readonly step: WaitTargetStep;
  readonly p95Ms: number;
  readonly maxMs: number;
  readonly samples: number;
}

/**
 * One priority's side of the wait-target controller: the waits of the current window and the share it
 * asks for above the configured one, as a weight multiplier (`boost`, at least 1) and extra reserved
 * slots (`extra`, at least 0). It decides from its own samples only and never reads a clock: the caller
 * says when time has passed.
 *
 * The rule, per window of at least `minSamples` starts:
 * - p95 wait above the target: raise at once (weight doubled, reserve up by a quarter, at least one);
 * - every wait at most half the target for `calmWindows` windows in a row: give back one step (weight
 *   divided by 1.5), and one reserved slot if the priority never filled its reserve in those windows
 *   (its most running, seen at its starts, stayed below the reserve);
 * - anything between: hold. The gap between the two thresholds is the hysteresis.
 * After a change, waits of tasks queued before it are not counted: they tell of the old share.
 */
export class WaitTargetLane {
  readonly targetMs: number;
  boost = 1;
  extra = 0;
  #window = new WaitSketch();
  /** Samples in `#window` (so a window short of samples is passed over without reading the sketch). */
  #samples = 0;
  #windowStart: number;
  #changedAt = Number.NEGATIVE_INFINITY;
  #calm = 0;
  /** The most of this priority running at once, at its starts, over the calm windows so far. */
  #peak = 0;

  constructor(targetMs: number, now: number) {
    this.targetMs = targetMs;
    this.#windowStart = now;
  }

  /**
   * A start (or a queue timeout) of this priority after `waitMs` in the queue, with `running` cost
   * units of it running just after.
   */
  record(now: number, waitMs: number, running: number): void {
    if (running > this.#peak) this.#peak = running;
    if (now - waitMs < this.#changedAt) return;
    this.#window.record(waitMs);
    this.#samples++;
  }

  /**
   * Judges the window when it is over and holds enough samples; `undefined` otherwise (nothing
   * changes). `reserved` is the priority's current effective reserve, used to size a raise.
   */
  judge(now: number, settings: ResolvedWaitTargets, reserved: number): WaitTargetVerdict | undefined {
    if (now - this.#windowStart < settings.windowMs || this.#samples < settings.minSamples) return undefined;
    const { count: samples, p95: p95Ms, max: maxMs } = this.#window.snapshot();
    this.#window = new WaitSketch();
    this.#samples = 0;
    this.#windowStart = now;
    let step: WaitTargetStep = "hold";
    if (p95Ms > this.targetMs) {
      step = "raise";
      this.boost = Math.min(settings.maxBoost, this.boost * 2);
      this.extra += Math.max(1, Math.ceil(reserved / 4));
    } else if (maxMs <= this.targetMs / 2) {
      this.#calm++;
      if (this.#calm < settings.calmWindows) return { step, p95Ms, maxMs, samples };
      const spare = this.#peak < reserved && this.extra > 0;
      if (this.boost > 1 || spare) {
        step = "lower";
        this.boost = Math.max(1, this.boost / 1.5);
        if (spare) this.extra--;
      }
    }
    this.#calm = 0;
    this.#peak = 0;
    if (step !== "hold") this.#changedAt = now;
    return { step, p95Ms, maxMs, samples };
  }

  /** Keeps the asked-for share within what could be applied (so it never grows past a bound unseen). */
  clampTo(boost: number, extra: number): void {
    this.boost = Math.max(1, Math.min(this.boost, boost));
    this.extra = Math.max(0, Math.min(this.extra, extra));
  }
}

import type { Clock } from "../clock.js";
import type { LimitEvent, LimitReason } from "../events.js";
import { isPromise, type LimitProposal, type LimitState, type MaybePromise } from "../store.js";
import { LatencyTrack, type LatencyVerdict } from "./latency.js";
import type { ResolvedAdaptive } from "./options.js";
import type { EndingSignal } from "./signals.js";

/** What the controller knows of a task: when it started, and its upstream's answer so far. */
export interface ObservedTask {
  readonly priority: string;
  readonly tenant: string;
  readonly enqueuedAt: number;
  readonly startedAt: number;
  readonly cost: number;
}

/** A priority's two latency measures (each priority has its own: chat and batch differ in kind). */
interface Tracks {
  readonly ttfb: LatencyTrack;
  readonly perToken: LatencyTrack;
}

/** The controller's ties to its scheduler. */
export interface LimitHost {
  readonly clock: Clock;
  /** Units running now (over every instance, as the store last knew). */
  running(): number;
  /** Applies a limit to this instance's store (a shared store has already taken it through `share`). */
  apply(limit: number): void;
  /** A shared store's atomic change of the one global limit; undefined for a local store. */
  readonly share: ((proposal: LimitProposal) => MaybePromise<LimitState>) | undefined;
  emit(event: LimitEvent): void;
  error(error: unknown): void;
}

/** Within this ratio of the limit of the last decrease, increases go one step at a time. */
const NEAR_CUT = 0.8;
/** Units running at a start at least this share of the limit mean the window used the limit. */
const FULL_USE = 0.9;

/**
 * The adaptive limit (AIMD with a latency guard), one per scheduler. Overload (an upstream 429/503, a
 * connection error, a run timeout) multiplies the limit by `overloadFactor` at once. A window of at
 * least `windowMs` and `minSamples` samples whose median time to first byte, or run time per output
 * token, is above `latencyTolerance` times its long baseline multiplies it by `latencyFactor` (or by
 * `tolerance × baseline / median` when that is lower, down to `overloadFactor`). A window that used
 * the limit fully without either adds `increaseStep` (doubled after each three increases in a row, at
 * most an eighth of the limit). Latency is measured per priority (chat and batch requests differ in
 * kind), each against its own baseline; one slow priority is enough. After a decrease nothing changes
 * for `cooldownMs`, and the endings of tasks started before it are not counted (they ran under the old
 * limit). Every window holds only tasks started under the limit in force. No timers: it moves on the
 * tasks' own events, through the scheduler's clock.
 */
export class LimitController {
  #config: ResolvedAdaptive;
  readonly #host: LimitHost;
  readonly #tracks = new Map<string, Tracks>();
  #limit: number;
  /** The shared store's epoch of the global limit, as last seen. */
  #epoch = 0;
  #pending = false;
  /** Tasks that started before this time belong to an earlier limit. */
  #changedAt: number;
  #decreasedAt = Number.NEGATIVE_INFINITY;
  #windowStart: number;
  #ended = 0;
  #fullUse = false;
  /** Increases in a row since the last decrease. */
  #streak = 0;
  /** The limit the last decrease started from (0 before the first). */
  #cutFrom = 0;
  /** The effective reserves in force (wait targets may raise them over the configured ones). */
  #reserved = 0;

  constructor(config: ResolvedAdaptive, host: LimitHost) {
    this.#config = config;
    this.#host = host;
    this.#limit = config.initial;
    this.#changedAt = this.#windowStart = host.clock.now();
  }

  /** The limit in force. */
  get limit(): number {
    return this.#limit;
  }

  /**
   * The effective reserves in force changed (the wait-target controller moved them, always within the
   * limit in force): a decrease stops at them (see `#decrease`). The limit itself does not move.
   */
  setReserved(total: number): void {
    this.#reserved = total;
  }

  /** New bounds or tunables from `update()`: the limit is kept, moved into the new range. */
  reconfigure(config: ResolvedAdaptive, setTo: number | undefined): void {
    this.#config = config;
    const target = setTo ?? this.#limit;
    const bounded = Math.min(config.max, Math.max(config.floor, target));
    if (bounded !== this.#limit || setTo !== undefined) this.#propose(bounded, "update", {}, true);
  }

  /**
   * A start that filled the limit (nearly), or that had to wait for a local store's slot, shows demand
   * for more (a shared store's grants always take a round trip: there only the global count tells).
   */
  started(task: ObservedTask): void {
    if (this.#fullUse || task.startedAt < this.#changedAt) return;
    const waited = this.#host.share === undefined && task.startedAt > task.enqueuedAt;
    if (waited || this.#host.running() >= Math.max(1, Math.floor(this.#limit * FULL_USE))) {
      this.#fullUse = true;
    }
  }

  /** The upstream's first byte for `task`, `ms` after its start. */
  firstByte(task: ObservedTask, ms: number): void {
    if (task.startedAt < this.#changedAt) return;
    this.#tracksOf(task.priority).ttfb.add(ms);
    this.#maybeCloseWindow();
  }

  /** `task` ended as `signal` says (a 429 already judged: the server's overload or one tenant's). */
  ended(task: ObservedTask, signal: EndingSignal, outputTokens: number | undefined): void {
    const now = this.#host.clock.now();
    if (signal === "overload") {
      this.#overload(task, now);
      return;
    }
    if (task.startedAt < this.#changedAt) return;
    this.#ended++;
    if (signal === "ok" && outputTokens !== undefined && outputTokens > 0) {
      this.#tracksOf(task.priority).perToken.add((now - task.startedAt) / outputTokens);
    }
    this.#maybeCloseWindow();
  }

  #overload(task: ObservedTask, now: number): void {
    if (task.startedAt < this.#decreasedAt || now < this.#decreasedAt + this.#config.cooldownMs) return;
    const target = Math.floor(this.#limit * this.#config.overloadFactor);
    this.#streak = 0;
    this.#decrease(target, "overload", now);
  }

  #decrease(target: number, reason: LimitReason, now: number, details: Partial<LimitEvent> = {}): void {
    this.#decreasedAt = now;
    this.#cutFrom = this.#limit;
    // The floor: the configured one (`min`, the configured reserves), raised to the effective reserves
    // (a wait target's slots are not cut away), but always at least one slot of progress: reserves
    // that hold the whole limit shrink with it (the wait targets bound them by the new limit).
    const floor = Math.max(this.#config.floor, Math.min(this.#reserved, this.#limit - 1));
    this.#propose(Math.max(floor, Math.min(target, this.#limit - 1)), reason, details);
  }

  #maybeCloseWindow(): void {
    const now = this.#host.clock.now();
    const { windowMs, minSamples, latencyTolerance, latencyFactor } = this.#config;
    if (now - this.#windowStart < windowMs || !this.#enoughSamples(minSamples)) return;
    if (now < this.#decreasedAt + this.#config.cooldownMs) return;
    let verdict: LatencyVerdict | undefined;
    for (const { ttfb, perToken } of this.#tracks.values()) {
      for (const track of [ttfb, perToken]) {
        const closed = track.close(minSamples, latencyTolerance);
        if (closed?.slow && verdict === undefined) verdict = closed;
      }
    }
    const fullUse = this.#fullUse;
    this.#startWindow(now);
    if (verdict !== undefined) {
      const { medianMs, baselineMs } = verdict;
      // Far over the tolerance, cut in proportion (at most as an overload does): fewer steps back.
      const proportional = (latencyTolerance * baselineMs) / medianMs;
      const ratio = Math.max(this.#config.overloadFactor, Math.min(latencyFactor, proportional));
      this.#streak = 0;
      this.#decrease(Math.floor(this.#limit * ratio), "latency", now, { medianMs, baselineMs });
    } else if (fullUse) {
      this.#propose(Math.min(this.#config.max, this.#limit + this.#step()), "increase", {});
    } else if (this.#host.share !== undefined) {
      this.#propose(this.#limit, "shared", {}); // learn what other instances did
    }
  }

  /**
   * A window needs `minSamples` of one latency measure of one priority (so that an increase waits for a
   * latency verdict), or, from tasks that report no latency, four times as many endings.
   */
  #enoughSamples(minSamples: number): boolean {
    let most = 0;
    for (const { ttfb, perToken } of this.#tracks.values()) most = Math.max(most, ttfb.count, perToken.count);
    return most >= minSamples || this.#ended >= 4 * minSamples;
  }

  #tracksOf(priority: string): Tracks {
    let tracks = this.#tracks.get(priority);
    if (tracks === undefined) {
      const weight = this.#config.baselineWeight;
      tracks = { ttfb: new LatencyTrack(weight), perToken: new LatencyTrack(weight) };
      this.#tracks.set(priority, tracks);
    }
    return tracks;
  }

  /**
   * The next increase: `increaseStep`, doubled after every three increases in a row, but never more
   * than an eighth of the limit (so a limit far below a new capacity catches up in a few windows), and
   * only `increaseStep` near the limit of the last decrease, where the knee was found.
   */
  #step(): number {
    const { increaseStep } = this.#config;
    const cut = this.#cutFrom;
    if (this.#limit >= cut * NEAR_CUT && this.#limit <= cut / NEAR_CUT) return increaseStep;
    const grown = increaseStep * 2 ** Math.floor(this.#streak / 3);
    this.#streak++;
    return Math.min(grown, Math.max(increaseStep, Math.ceil(this.#limit / 8)));
  }

  #startWindow(now: number): void {
    this.#windowStart = now;
    this.#ended = 0;
    this.#fullUse = false;
  }

  /** Moves the limit to `target` (through the shared store when there is one). */
  #propose(target: number, reason: LimitReason, details: Partial<LimitEvent>, force = false): void {
    const share = this.#host.share;
    if (share === undefined) {
      this.#set(target, reason, details);
      return;
    }
    if (this.#pending) return;
    const { floor, max, increaseStep } = this.#config;
    const proposal: LimitProposal = {
      epoch: this.#epoch,
      limit: target,
      floor,
      max,
      // An increase is bounded from the global limit by this instance's own step.
      maxIncrease: Math.max(increaseStep, target - this.#limit),
      force,
    };
    let answer: MaybePromise<LimitState>;
    try {
      answer = share(proposal);
    } catch (error) {
      this.#host.error(error);
      return;
    }
    const settle = (state: LimitState): void => {
      const accepted = state.changed;
      this.#epoch = state.epoch;
      this.#set(state.limit, accepted ? reason : "shared", accepted ? details : {});
    };
    if (!isPromise(answer)) {
      settle(answer);
      return;
    }
    this.#pending = true;
    answer
      .then(settle, (error: unknown) => this.#host.error(error))
      .finally(() => {
        this.#pending = false;
      });
  }

  #set(target: number, reason: LimitReason, details: Partial<LimitEvent>): void {
    const previous = this.#limit;
    const { floor, max } = this.#config;
    const limit = Math.min(max, Math.max(floor, Math.round(target)));
    if (limit === previous) return;
    const now = this.#host.clock.now();
    this.#limit = limit;
    this.#changedAt = now;
    this.#startWindow(now);
    for (const { ttfb, perToken } of this.#tracks.values()) {
      ttfb.reset();
      perToken.reset();
    }
    this.#host.apply(limit);
    this.#host.emit({ ...details, limit, previous, reason });
  }
}

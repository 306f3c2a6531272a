import type { Clock } from "../clock.js";
import type { LimitEvent, LimitReason } from "../events.js";
import { isPromise, type LimitProposal, type LimitState, type MaybePromise } from "../store.js";
import { DelayPolicy } from "./delay-policy.js";
import { LatencyTrack } from "./latency.js";
import type { ResolvedAdaptive } from "./options.js";
import { AimdPolicy, type LimitPolicy, type WindowReading } from "./policy.js";
import type { EndingSignal } from "./signals.js";

/** What the controller knows of a task: when it started, and its upstream's answer so far. */
export interface ObservedTask {
  readonly priority: string;
  readonly tenant: string;
  readonly enqueuedAt: number;
  readonly startedAt: number;
  readonly cost: number;
}

/**
 * A priority's latency measures (each priority has its own: chat and batch differ in kind): time to
 * first byte, run time per output token (tasks that report usage), and run time (tasks that do not).
 */
interface Tracks {
  readonly ttfb: LatencyTrack;
  readonly perToken: LatencyTrack;
  readonly runTime: LatencyTrack;
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

/** Units running at a start at least this share of the limit mean the window used the limit. */
const FULL_USE = 0.9;

/**
 * The adaptive limit, one per scheduler: it measures, and its {@link LimitPolicy} (`"delay"` or
 * `"aimd"`) decides. Overload (an upstream 503, a connection error, a run timeout) cuts the limit at
 * once. Latency is measured per priority (chat and batch requests differ in kind), each measure against
 * its own baseline: time to first byte, run time per output token when the task reported usage, plain
 * run time when it did not. A window closes after at least `windowMs` and `minSamples` samples of one
 * measure; its reading is the slowest measure's median over its baseline, and whether the limit was
 * used fully. After a decrease nothing changes for `cooldownMs`, and the endings of tasks started
 * before it are not counted (they ran under the old limit). Every window holds only tasks started
 * under the limit in force. An upstream that reports its own load (`upstreamLoad`) adds a reading to the
 * window: a queue all through it cuts, room all through it lets the limit grow. No timers: it moves on
 * the tasks' own events, through the scheduler's clock.
 */
export class LimitController {
  #config: ResolvedAdaptive;
  readonly #host: LimitHost;
  readonly #tracks = new Map<string, Tracks>();
  #policy: LimitPolicy;
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
  /** The lowest and highest load the upstream reported of itself in this window (see `upstreamLoad`). */
  #upstreamLoad: { lowest: number; highest: number } | undefined;
  /** The effective reserves in force (wait targets may raise them over the configured ones). */
  #reserved = 0;

  constructor(config: ResolvedAdaptive, host: LimitHost) {
    this.#config = config;
    this.#host = host;
    this.#limit = config.initial;
    this.#policy = policyOf(config);
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
    if (config.controller !== this.#config.controller) this.#policy = policyOf(config);
    else this.#policy.reconfigure(config);
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

  /**
   * The upstream's own reading of its load (the work it holds over what it runs at once: 1, no queue),
   * read elsewhere (a pool scrapes an LLM engine's queue). The window keeps the lowest and the highest:
   * one that stayed over 1 all along cuts the limit, one that never went over 1 lets it grow (see
   * `upstreamCut` and `wantsMore`). Readings in a cool-down are dropped: they still show the load the
   * limit before the decrease let in.
   */
  upstreamLoad(load: number): void {
    if (this.#host.clock.now() < this.#decreasedAt + this.#config.cooldownMs) return;
    const seen = this.#upstreamLoad;
    this.#upstreamLoad =
      seen === undefined
        ? { lowest: load, highest: load }
        : { lowest: Math.min(seen.lowest, load), highest: Math.max(seen.highest, load) };
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
    if (signal === "ok") {
      const tracks = this.#tracksOf(task.priority);
      const runMs = now - task.startedAt;
      if (outputTokens !== undefined && outputTokens > 0) tracks.perToken.add(runMs / outputTokens);
      else if (outputTokens === undefined) tracks.runTime.add(runMs);
    }
    this.#maybeCloseWindow();
  }

  #overload(task: ObservedTask, now: number): void {
    if (task.startedAt < this.#decreasedAt || now < this.#decreasedAt + this.#config.cooldownMs) return;
    this.#decrease(this.#policy.afterOverload(this.#limit, now), "overload", now);
  }

  #decrease(target: number, reason: LimitReason, now: number, details: Partial<LimitEvent> = {}): void {
    this.#decreasedAt = now;
    // The floor: the configured one (`min`, the configured reserves), raised to the effective reserves
    // (a wait target's slots are not cut away), but always at least one slot of progress: reserves
    // that hold the whole limit shrink with it (the wait targets bound them by the new limit).
    const floor = Math.max(this.#config.floor, Math.min(this.#reserved, this.#limit - 1));
    this.#propose(Math.max(floor, Math.min(target, this.#limit - 1)), reason, details);
  }

  #maybeCloseWindow(): void {
    const now = this.#host.clock.now();
    const { windowMs } = this.#config;
    if (now - this.#windowStart < windowMs || !this.#enoughSamples(this.#minSamples())) return;
    if (now < this.#decreasedAt + this.#config.cooldownMs) return;
    const reading = this.#read();
    this.#startWindow(now);
    const move = this.#policy.afterWindow(this.#limit, reading, now);
    if (move?.reason === "latency") {
      const { medianMs, baselineMs } = reading;
      this.#decrease(move.target, "latency", now, { medianMs, baselineMs });
    } else if (move?.reason === "upstream") {
      this.#decrease(move.target, "upstream", now);
    } else if (move !== undefined) {
      this.#propose(Math.min(this.#config.max, move.target), "increase", {});
    } else if (this.#host.share !== undefined) {
      this.#propose(this.#limit, "shared", {}); // learn what other instances did
    }
  }

  /** Closes every measure that has enough samples; the slowest against its baseline is the reading. */
  /** Samples a window needs: `minSamples`, a third of it while a probe is judged. */
  #minSamples(): number {
    const { minSamples } = this.#config;
    return this.#policy.probing ? Math.ceil(minSamples / 3) : minSamples;
  }

  #read(): WindowReading {
    const minSamples = this.#minSamples();
    const base = { fullUse: this.#fullUse, upstreamLoad: this.#upstreamLoad };
    let reading: WindowReading = { ratio: undefined, medianMs: 0, baselineMs: 0, ...base };
    for (const { ttfb, perToken, runTime } of this.#tracks.values()) {
      for (const track of [ttfb, perToken, runTime]) {
        const closed = track.close(minSamples);
        if (closed === undefined) continue;
        // A baseline of 0 (instant answers) cannot be exceeded by a ratio: only a real delay counts.
        const { medianMs, baselineMs } = closed;
        const ratio = medianMs <= baselineMs + 1 ? 1 : medianMs / baselineMs;
        if (reading.ratio === undefined || ratio > reading.ratio) {
          reading = { ratio, medianMs, baselineMs, measure: track, ...base };
        }
      }
    }
    return reading;
  }

  /**
   * A window needs `minSamples` of one latency measure of one priority (so that an increase waits for a
   * latency verdict), or, from tasks that report no latency, four times as many endings.
   */
  #enoughSamples(minSamples: number): boolean {
    let most = 0;
    for (const { ttfb, perToken, runTime } of this.#tracks.values()) {
      most = Math.max(most, ttfb.count, perToken.count, runTime.count);
    }
    return most >= minSamples || this.#ended >= 4 * minSamples;
  }

  #tracksOf(priority: string): Tracks {
    let tracks = this.#tracks.get(priority);
    if (tracks === undefined) {
      const weight = this.#config.baselineWeight;
      tracks = {
        ttfb: new LatencyTrack(weight),
        perToken: new LatencyTrack(weight),
        runTime: new LatencyTrack(weight),
      };
      this.#tracks.set(priority, tracks);
    }
    return tracks;
  }

  #startWindow(now: number): void {
    this.#windowStart = now;
    this.#ended = 0;
    this.#fullUse = false;
    this.#upstreamLoad = undefined;
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
    for (const { ttfb, perToken, runTime } of this.#tracks.values()) {
      ttfb.reset();
      perToken.reset();
      runTime.reset();
    }
    this.#host.apply(limit);
    this.#host.emit({ ...details, limit, previous, reason });
  }
}

function policyOf(config: ResolvedAdaptive): LimitPolicy {
  return config.controller === "aimd" ? new AimdPolicy(config) : new DelayPolicy(config);
}

import type { Clock } from "../clock.js";
import type { Emitter } from "../emitter.js";
import { ErrorCode } from "../errors.js";
import type { SchedulerEvents } from "../events.js";
import type { ResolvedOptions, ResolvedWaitTargets } from "../options.js";
import { effectiveOptions, type Share, sharesOf } from "./effective-priorities.js";
import { WaitTargetLane, type WaitTargetVerdict } from "./wait-target-lane.js";

/** What the controller needs from the scheduler it steers. */
export interface WaitTargetHost {
  readonly clock: Clock;
  readonly events: Emitter<SchedulerEvents>;
  /** The options as configured (what `update()` edits): the floor of every effective value. */
  configured(): ResolvedOptions;
  /** The limit in force (the adaptive limit where it stands now): every effective reserve fits in it. */
  limit(): number;
  /** Cost units of `priority` running on this instance now. */
  runningCost(priority: string): number;
  /** Hands effective options to the store; a failure is the host's to report. */
  apply(effective: ResolvedOptions): void;
}

/**
 * The wait-target controller: for each priority with `targetWaitMs`, it measures the queue waits of
 * its starts (and its queue timeouts) per window and moves the priority's EFFECTIVE weight and reserve
 * (see {@link WaitTargetLane} for the rule, {@link effectiveOptions} for the bounds). The configured
 * values stay what `update()` edits; the store gets the effective ones through `configure`. It judges
 * lazily, when a sample arrives after a window ended (no timer of its own), and applies a change in a
 * microtask, never from inside the store's own grant.
 */
export class WaitTargets {
  readonly #host: WaitTargetHost;
  #settings: ResolvedWaitTargets;
  readonly #lanes = new Map<string, WaitTargetLane>();
  readonly #verdicts = new Map<string, WaitTargetVerdict>();
  #effective: ResolvedOptions;
  #pending = false;
  #unsubscribe: Array<() => void> = [];

  constructor(host: WaitTargetHost, settings: ResolvedWaitTargets) {
    this.#host = host;
    this.#settings = settings;
    this.#effective = host.configured();
    this.reconfigure(settings);
  }

  /** The options the store works from now. */
  get effective(): ResolvedOptions {
    return this.#effective;
  }

  /** `targetWaitMs` by priority, for the priorities that have one. */
  get targets(): ReadonlyMap<string, number> {
    return this.#settings.targets;
  }

  /**
   * New settings (from `update()`): lanes of priorities that keep their target keep their state (a
   * changed target starts afresh); returns the effective options for the configured ones now in force.
   */
  reconfigure(settings: ResolvedWaitTargets): ResolvedOptions {
    this.#settings = settings;
    const now = this.#host.clock.now();
    for (const name of [...this.#lanes.keys()]) {
      if (settings.targets.get(name) !== this.#lanes.get(name)!.targetMs) this.#lanes.delete(name);
    }
    for (const [name, target] of settings.targets) {
      if (!this.#lanes.has(name)) this.#lanes.set(name, new WaitTargetLane(target, now));
    }
    this.#listen(this.#lanes.size > 0);
    this.#effective = effectiveOptions(this.#host.configured(), this.#lanes, settings, this.#host.limit());
    return this.#effective;
  }

  /**
   * The limit in force moved (the adaptive limit): the effective reserves are bounded afresh by it (a
   * reserve cut this way stays cut until the target raises it again; `share` event, reason `"limit"`).
   * Returns the effective options, for the host to hand to the store together with the new limit.
   */
  limitMoved(): ResolvedOptions {
    const changed = this.#recompute();
    for (const change of changed) this.#announce(change, "limit");
    return this.#effective;
  }

  /** The last judged window of `priority`, if any. */
  verdict(priority: string): WaitTargetVerdict | undefined {
    return this.#verdicts.get(priority);
  }

  /** A start or a queue timeout of `priority` after `waitMs` in the queue. */
  record(priority: string, waitMs: number): void {
    const lane = this.#lanes.get(priority);
    if (lane === undefined) return;
    const now = this.#host.clock.now();
    lane.record(now, waitMs, this.#host.runningCost(priority));
    const reserved = this.#effective.priorityByName.get(priority)?.reserved ?? 0;
    const verdict = lane.judge(now, this.#settings, reserved);
    if (verdict === undefined) return;
    this.#verdicts.set(priority, verdict);
    if (verdict.step !== "hold" && !this.#pending) {
      this.#pending = true;
      queueMicrotask(() => this.#applyNow());
    }
  }

  /** Stops listening (the scheduler closed). */
  dispose(): void {
    this.#listen(false);
  }

  #applyNow(): void {
    this.#pending = false;
    const changed = this.#recompute();
    if (changed.length === 0) return;
    this.#host.apply(this.#effective);
    for (const change of changed) this.#announce(change, undefined);
  }

  /** Recomputes the effective options from the configured ones, the lanes and the limit in force. */
  #recompute(): ShareChange[] {
    const previous = this.#effective;
    const before = sharesOf(previous);
    const configured = this.#host.configured();
    this.#effective = effectiveOptions(configured, this.#lanes, this.#settings, this.#host.limit());
    const after = sharesOf(this.#effective);
    const changed = [...after]
      .filter(([name, share]) => !same(share, before.get(name)))
      .map(([name, share]) => ({ name, share, before: before.get(name), configured }));
    // The same shares: keep the object, so the store is not configured again for nothing (`update()`
    // computes afresh through `reconfigure` first, so `previous` holds its other fields).
    if (changed.length === 0) this.#effective = previous;
    return changed;
  }

  #announce(change: ShareChange, reason: "limit" | undefined): void {
    const { name, share, before, configured } = change;
    const { events } = this.#host;
    if (!events.has("share")) return;
    const own = configured.priorityByName.get(name)!;
    const verdict = this.#verdicts.get(name);
    events.emit("share", {
      priority: name,
      weight: share.weight,
      reserved: share.reserved,
      previousWeight: before?.weight ?? own.weight,
      previousReserved: before?.reserved ?? own.reserved,
      configuredWeight: own.weight,
      configuredReserved: own.reserved,
      targetWaitMs: this.#settings.targets.get(name) ?? Number.NaN,
      p95Ms: verdict?.p95Ms ?? 0,
      reason: reason ?? (verdict?.step === "raise" ? "above-target" : "under-target"),
    });
  }

  #listen(on: boolean): void {
    if (!on) {
      for (const off of this.#unsubscribe) off();
      this.#unsubscribe = [];
      return;
    }
    if (this.#unsubscribe.length > 0) return;
    const { events } = this.#host;
    this.#unsubscribe = [
      events.on("started", (event) => this.record(event.priority, event.waitMs)),
      events.on("rejected", (event) => {
        if (event.code === ErrorCode.QUEUE_TIMEOUT) this.record(event.priority, event.waitMs);
      }),
    ];
  }
}

/** One priority's share as it moved. */
interface ShareChange {
  readonly name: string;
  readonly share: Share;
  readonly before: Share | undefined;
  readonly configured: ResolvedOptions;
}

function same(a: Share | undefined, b: Share | undefined): boolean {
  return a !== undefined && b !== undefined && a.weight === b.weight && a.reserved === b.reserved;
}

import type { ResolvedHealth } from "./options.js";

/**
 * One replica's health, as a small state machine on an injected time: `healthy` until `failures`
 * consecutive failures (connection errors, 5xx, failed checks) eject it; ejected until `ejectMs` has
 * passed, then due for one half-open probe; a probe that passes brings it back, one that fails ejects
 * it again for twice as long (at most `maxEjectMs`). Any success while healthy resets the count.
 *
 * @example
 * const health = new ReplicaHealth(options, () => Date.now(), (healthy) => console.log(healthy));
 * health.failure(); // after `failures` of these in a row, the replica is ejected
 */
export class ReplicaHealth {
  readonly #options: ResolvedHealth;
  readonly #now: () => number;
  readonly #changed: (healthy: boolean) => void;
  #failures = 0;
  #ejectedUntil: number | undefined;
  #ejectMs: number;
  #ejections = 0;
  #probing = false;

  constructor(options: ResolvedHealth, now: () => number, changed: (healthy: boolean) => void) {
    this.#options = options;
    this.#now = now;
    this.#changed = changed;
    this.#ejectMs = options.ejectMs;
  }

  get healthy(): boolean {
    return this.#ejectedUntil === undefined;
  }

  /**
   * True while the replica is ejected but its ejection has run out: its half-open probe is due or
   * under way, and its next state hangs on that probe.
   */
  get halfOpen(): boolean {
    return this.#ejectedUntil !== undefined && (this.#probing || this.#now() >= this.#ejectedUntil);
  }

  /** Consecutive failures counted since the last success. */
  get consecutiveFailures(): number {
    return this.#failures;
  }

  /** How many times this replica has been ejected. */
  get ejections(): number {
    return this.#ejections;
  }

  /** Milliseconds until an ejected replica is due for its probe (0 when due); `undefined` when healthy. */
  probeInMs(): number | undefined {
    if (this.#ejectedUntil === undefined) return undefined;
    return Math.max(0, this.#ejectedUntil - this.#now());
  }

  /** A request or an active check succeeded. */
  success(): void {
    if (this.#ejectedUntil === undefined) this.#failures = 0;
  }

  /** A request or an active check failed; may eject the replica. */
  failure(): void {
    if (this.#ejectedUntil !== undefined) return; // requests started before the ejection say nothing new
    this.#failures += 1;
    if (this.#failures >= this.#options.failures) this.#eject();
  }

  /** Another instance ejected the replica: ejected here too, for the `ms` that ejection has left. */
  ejectFor(ms: number): void {
    if (this.#ejectedUntil !== undefined) return;
    this.#ejections += 1;
    this.#ejectedUntil = this.#now() + ms;
    this.#safeChanged(false);
  }

  /**
   * Starts the half-open probe if the replica is ejected and due (and no probe runs): returns the
   * function to call with the probe's result, or `undefined` when no probe is due.
   */
  beginProbe(): ((passed: boolean) => void) | undefined {
    const wait = this.probeInMs();
    if (wait === undefined || wait > 0 || this.#probing) return undefined;
    this.#probing = true;
    return (passed) => {
      this.#probing = false;
      if (this.#ejectedUntil === undefined) return;
      if (passed) this.#restore();
      else {
        this.#ejectMs = Math.min(this.#ejectMs * 2, this.#options.maxEjectMs);
        this.#ejectedUntil = this.#now() + this.#ejectMs;
      }
    };
  }

  #eject(): void {
    this.#ejections += 1;
    this.#ejectedUntil = this.#now() + this.#ejectMs;
    this.#safeChanged(false);
  }

  #restore(): void {
    this.#ejectedUntil = undefined;
    this.#failures = 0;
    this.#ejectMs = this.#options.ejectMs;
    this.#safeChanged(true);
  }

  #safeChanged(healthy: boolean): void {
    try {
      this.#changed(healthy);
    } catch {
      // a listener that throws must not leave the state machine half-way
    }
  }
}

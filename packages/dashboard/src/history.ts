import type { Clock } from "@llm-scheduler/core";
import type { DashboardSnapshot } from "./snapshot.js";

/**
 * The last `historyMs` of snapshots, one every `intervalMs`, in a ring of fixed length, so that a page
 * opened now draws the last minutes at once instead of an empty chart. Sampling starts when it is made
 * (one `metrics()` per `intervalMs`, on the scheduler's clock, whose timers do not keep a process alive)
 * and stops at `close()`. Snapshots are kept whole (tenants included) and cut down per viewer when served.
 *
 * @example
 * const history = new SnapshotHistory(clock, 1_000, 120_000, () => buildSnapshot(...));
 * history.list(); // oldest first
 */
export class SnapshotHistory {
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #ring: Array<DashboardSnapshot | undefined>;
  readonly #sample: () => DashboardSnapshot;
  #next = 0;
  #timer: unknown;
  #open = true;

  constructor(clock: Clock, intervalMs: number, historyMs: number, sample: () => DashboardSnapshot) {
    this.#clock = clock;
    this.#intervalMs = intervalMs;
    this.#ring = new Array(Math.ceil(historyMs / intervalMs)).fill(undefined);
    this.#sample = sample;
    if (this.#ring.length > 0) this.#tick();
  }

  /** The snapshots kept, oldest first. */
  list(): DashboardSnapshot[] {
    const ring = this.#ring;
    const ordered = [...ring.slice(this.#next), ...ring.slice(0, this.#next)];
    return ordered.filter((entry): entry is DashboardSnapshot => entry !== undefined);
  }

  /** Stops sampling. */
  close(): void {
    this.#open = false;
    this.#clock.clearTimer(this.#timer);
  }

  #tick(): void {
    if (!this.#open) return;
    try {
      this.#ring[this.#next] = this.#sample();
      this.#next = (this.#next + 1) % this.#ring.length;
    } catch {
      // a scheduler whose metrics() throws leaves a gap in the history
    }
    this.#timer = this.#clock.setTimer(() => this.#tick(), this.#intervalMs);
  }
}

import type { Clock } from "@llm-scheduler/core";
import type { AgingClock } from "./wire.js";

/**
 * The object's picking clock (aging, token buckets). With `"object"` it is the object's own time, and a
 * ticket's wait so far (measured by its scheduler's clock) is carried over to it; with `"scheduler"` it
 * is the latest time the schedulers sent (it stands still between calls), so a virtual clock drives it.
 * Leases always run on the object's own time (`Date.now()`), whatever this clock says.
 */
export class ObjectClock implements Clock {
  mode: AgingClock = "object";
  #sent = 0;

  now(): number {
    return this.mode === "object" ? Date.now() : this.#sent;
  }

  /** A call arrived, sent at `sent` by its scheduler's clock (never moves the clock back). */
  follow(sent: number): void {
    if (this.mode === "scheduler" && Number.isFinite(sent)) this.#sent = Math.max(this.#sent, sent);
  }

  /** When a ticket that the scheduler's clock says joined at `enqueuedAt` (read at `sent`) joined here. */
  joinedAt(enqueuedAt: number, sent: number): number {
    if (this.mode === "scheduler") return enqueuedAt;
    return Date.now() - Math.max(0, sent - enqueuedAt);
  }

  setTimer(callback: () => void, ms: number): unknown {
    return setTimeout(callback, ms);
  }

  clearTimer(handle: unknown): void {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  }
}

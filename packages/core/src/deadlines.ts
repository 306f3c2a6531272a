import { type Clock, MAX_TIMER_MS, type TimerHandle } from "./clock.js";
import { type HeapItem, IndexedHeap } from "./heap.js";

/** Something with at most one deadline at a time. */
export interface Deadlined extends HeapItem {
  /**
   * When it falls due, in whole ms after the deadlines' origin (rounded up, so never early); -1 when
   * none. Owned by {@link Deadlines}. Small integers keep the field unboxed in the record.
   */
  deadline: number;
}

const sooner = (a: Deadlined, b: Deadlined): boolean => a.deadline < b.deadline;

/**
 * Every queue, run and grace deadline of a scheduler in one heap, driven by one timer that is armed for
 * the earliest deadline. Setting a later deadline never touches the timer; removing one leaves the timer
 * armed, and it re-arms itself for whatever is due next when it fires.
 */
export class Deadlines<T extends Deadlined> {
  readonly #heap = new IndexedHeap<T>(sooner);
  readonly #clock: Clock;
  readonly #onExpire: (item: T) => void;
  #timer: TimerHandle | null = null;
  #armedAt = Number.POSITIVE_INFINITY;
  readonly #origin: number;
  readonly #fire = (): void => this.#expireDue();

  constructor(clock: Clock, onExpire: (item: T) => void) {
    this.#clock = clock;
    this.#onExpire = onExpire;
    this.#origin = clock.now();
  }

  get size(): number {
    return this.#heap.size;
  }

  /** Gives `item` the deadline `at`, a clock time (replacing any it had); `Infinity` means none. */
  set(item: T, at: number): void {
    if (item.heapIndex >= 0) this.#heap.remove(item);
    if (at === Number.POSITIVE_INFINITY) {
      item.deadline = -1;
      return;
    }
    const due = Math.max(0, Math.ceil(at - this.#origin));
    item.deadline = due;
    this.#heap.push(item);
    if (due < this.#armedAt) this.#arm(due);
  }

  clear(item: T): void {
    if (item.heapIndex >= 0) this.#heap.remove(item);
  }

  /**
   * Expires what is due and arms the timer afresh from the caller. Where a timer belongs to the request
   * that set it (Cloudflare's workerd cancels it when that request ends), a live request calls this so
   * that a timer lost with another request is replaced.
   */
  rearm(): void {
    this.#disarm();
    this.#expireDue();
  }

  /** Drops every deadline and the timer. */
  dispose(): void {
    this.#heap.clear();
    this.#disarm();
  }

  #arm(due: number): void {
    this.#disarm();
    this.#armedAt = due;
    // A deadline past what a runtime timer can hold is reached in steps: the timer fires early, finds
    // nothing due and re-arms (see #expireDue), so the deadline itself never moves.
    const wait = Math.max(0, Math.ceil(this.#origin + due - this.#clock.now()));
    this.#timer = this.#clock.setTimer(this.#fire, Math.min(wait, MAX_TIMER_MS));
  }

  #disarm(): void {
    if (this.#timer !== null) this.#clock.clearTimer(this.#timer);
    this.#timer = null;
    this.#armedAt = Number.POSITIVE_INFINITY;
  }

  #expireDue(): void {
    this.#timer = null;
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = this.#clock.now() - this.#origin;
    for (let item = this.#heap.peek(); item !== undefined && item.deadline <= now; item = this.#heap.peek()) {
      this.#heap.remove(item);
      this.#onExpire(item);
    }
    const next = this.#heap.peek();
    if (next !== undefined && this.#timer === null) this.#arm(next.deadline);
  }
}

import type { Clock, TimerHandle } from "./clock.js";
import { type HeapItem, IndexedHeap } from "./heap.js";

/** Something with at most one deadline at a time. */
export interface Deadlined extends HeapItem {
  /** When it falls due, by the scheduler's clock; owned by {@link Deadlines}. */
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
  readonly #fire = (): void => this.#expireDue();

  constructor(clock: Clock, onExpire: (item: T) => void) {
    this.#clock = clock;
    this.#onExpire = onExpire;
  }

  get size(): number {
    return this.#heap.size;
  }

  /** Gives `item` the deadline `at` (replacing any it had); `Infinity` means none. */
  set(item: T, at: number): void {
    if (item.heapIndex >= 0) this.#heap.remove(item);
    item.deadline = at;
    if (at === Number.POSITIVE_INFINITY) return;
    this.#heap.push(item);
    if (at < this.#armedAt) this.#arm(at);
  }

  clear(item: T): void {
    if (item.heapIndex >= 0) this.#heap.remove(item);
  }

  /** Drops every deadline and the timer. */
  dispose(): void {
    this.#heap.clear();
    this.#disarm();
  }

  #arm(at: number): void {
    this.#disarm();
    this.#armedAt = at;
    this.#timer = this.#clock.setTimer(this.#fire, Math.max(0, Math.ceil(at - this.#clock.now())));
  }

  #disarm(): void {
    if (this.#timer !== null) this.#clock.clearTimer(this.#timer);
    this.#timer = null;
    this.#armedAt = Number.POSITIVE_INFINITY;
  }

  #expireDue(): void {
    this.#timer = null;
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    for (let item = this.#heap.peek(); item !== undefined && item.deadline <= now; item = this.#heap.peek()) {
      this.#heap.remove(item);
      this.#onExpire(item);
    }
    const next = this.#heap.peek();
    if (next !== undefined && this.#timer === null) this.#arm(next.deadline);
  }
}

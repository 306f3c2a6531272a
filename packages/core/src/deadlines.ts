import { type Clock, MAX_TIMER_MS, type TimerHandle } from "./clock.js";
import type { DeadlineFifo } from "./fifo-deadlines.js";
import { type HeapItem, IndexedHeap } from "./heap.js";

/** Something with at most one deadline at a time; both fields are owned by {@link Deadlines}. */
export interface Deadlined extends HeapItem {
  /**
   * When its deadline falls due, in whole ms after the deadlines' origin (rounded up, so never early;
   * small integers stay unboxed in the record); -1 when it has none.
   */
  due: number;
  /** Its place in the heap of run, grace and out-of-order queue deadlines; -1 when not there. */
  heapIndex: number;
}

const sooner = (a: Deadlined, b: Deadlined): boolean => a.due < b.due;

/**
 * Every queue, run and grace deadline of a scheduler, driven by one timer that is armed for the earliest
 * deadline. Queue deadlines go to a FIFO per priority ({@link queue}: every task of a priority has the
 * same queue timeout, so they arrive sorted and leave in O(1)); run and grace deadlines, which differ per
 * task, go to one heap. Setting a later deadline never touches the timer; removing one leaves the timer
 * armed, and it re-arms itself for whatever is due next when it fires.
 */
export class Deadlines<T extends Deadlined> {
  readonly #heap = new IndexedHeap<T>(sooner);
  /** Every FIFO that has held a deadline (listed whenever one gets its first after being empty). */
  readonly #fifos = new Set<DeadlineFifo<T>>();
  readonly #fifoOf: (item: T) => DeadlineFifo<T>;
  readonly #clock: Clock;
  readonly #onExpire: (item: T) => void;
  #timer: TimerHandle | null = null;
  #armedAt = Number.POSITIVE_INFINITY;
  readonly #origin: number;
  readonly #fire = (): void => this.#expireDue();

  /** @param fifoOf the FIFO an item's queue deadline goes to (its priority's), see {@link queue}. */
  constructor(clock: Clock, onExpire: (item: T) => void, fifoOf: (item: T) => DeadlineFifo<T>) {
    this.#fifoOf = fifoOf;
    this.#clock = clock;
    this.#onExpire = onExpire;
    this.#origin = clock.now();
  }

  get size(): number {
    return this.#heap.size;
  }

  /** Gives `item` the deadline `at`, a clock time (replacing any it had); `Infinity` means none. */
  set(item: T, at: number): void {
    this.clear(item);
    if (at === Number.POSITIVE_INFINITY) return;
    const due = Math.max(0, Math.ceil(at - this.#origin));
    item.due = due;
    this.#heap.push(item);
    if (due < this.#armedAt) this.#arm(due);
  }

  /**
   * Gives `item`, which has no deadline yet, the queue deadline `at`, in the FIFO of its priority. A
   * deadline earlier than the FIFO's last (the queue timeout was lowered by `update()`) goes to the heap.
   * Once per item: a FIFO drops a removed entry lazily, so an item that waits again gets {@link set}.
   */
  queue(item: T, at: number): void {
    if (at === Number.POSITIVE_INFINITY) return;
    const fifo = this.#fifoOf(item);
    if (fifo.last === -1) this.#fifos.add(fifo);
    const due = Math.max(0, Math.ceil(at - this.#origin));
    if (due < fifo.last) {
      this.set(item, at);
      return;
    }
    fifo.push(item, due);
    if (due < this.#armedAt) this.#arm(due);
  }

  clear(item: T): void {
    if (item.heapIndex >= 0) {
      this.#heap.remove(item);
      item.due = -1;
    } else if (item.due >= 0) this.#fifoOf(item).remove(item);
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
    for (let item = this.#heap.pop(); item !== undefined; item = this.#heap.pop()) item.due = -1;
    for (const fifo of this.#fifos.values()) fifo.clear();
    this.#fifos.clear();
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
    for (let item = this.#earliest(); item !== undefined && item.due <= now; item = this.#earliest()) {
      this.clear(item);
      this.#onExpire(item);
    }
    const next = this.#earliest();
    if (next !== undefined && this.#timer === null) this.#arm(next.due);
  }

  /** The item due first: the heap's top or the head of one of the (few) priority FIFOs. */
  #earliest(): T | undefined {
    let earliest = this.#heap.peek();
    for (const fifo of this.#fifos.values()) {
      const head = fifo.peek();
      if (head !== undefined && (earliest === undefined || head.due < earliest.due)) earliest = head;
    }
    return earliest;
  }
}

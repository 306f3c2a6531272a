import type { Deadlined } from "./deadlines.js";

/** True while `item`'s deadline sits in a {@link DeadlineFifo}: it has one, and not in the heap. */
export function inFifo(item: Deadlined): boolean {
  return item.due >= 0 && item.heapIndex === -1;
}

/**
 * The queue deadlines of one priority, in the order they were set. Every task of a priority waits with
 * the same queue timeout, so deadlines arrive already sorted: adding is a push, the earliest is the
 * head. An item's `due` holds its deadline while it is here; removing it only sets `due` to -1 (or
 * moves it to the heap, see `Deadlines.set`), and such entries are dropped when they reach the head, or all at once when they outnumber the live ones, so a
 * removal costs O(1) amortized and a finished task is not kept alive for long.
 *
 * @example
 * const fifo = new DeadlineFifo<Task>();
 * if (due >= fifo.last) fifo.push(task, due);
 * const first = fifo.peek();
 * fifo.remove(task);
 */
export class DeadlineFifo<T extends Deadlined> {
  /** Entries from `#head` on; the slots before it are emptied, so that they keep no task alive. */
  #items: Array<T | undefined> = [];
  #head = 0;
  #live = 0;
  #last = -1;

  /** The latest deadline added, or -1 when empty: a smaller one cannot be appended. */
  get last(): number {
    return this.#last;
  }

  /** Entries held, live or removed (at most about twice the live ones). */
  get slots(): number {
    return this.#items.length - this.#head;
  }

  /** The live item with the earliest deadline, if any (its `due` is that deadline). */
  peek(): T | undefined {
    this.#skipRemoved();
    return this.#items[this.#head];
  }

  /** Appends `item` with the deadline `due`, which is at least {@link last}. */
  push(item: T, due: number): void {
    item.due = due;
    this.#last = due;
    this.#items.push(item);
    this.#live++;
  }

  /** Takes `item` (which must be in this FIFO) out; its entry goes when it reaches the head or at compaction. */
  remove(item: T): void {
    item.due = -1;
    this.#live--;
    const items = this.#items;
    if (items[this.#head] === item) this.#skipRemoved();
    else if (items.length - this.#head > 2 * this.#live + 32) this.#compact();
  }

  /** Takes every item out. */
  clear(): void {
    for (let index = this.#head; index < this.#items.length; index++) {
      const item = this.#items[index]!;
      if (inFifo(item)) item.due = -1;
    }
    this.#items = [];
    this.#head = 0;
    this.#live = 0;
    this.#last = -1;
  }

  #skipRemoved(): void {
    const items = this.#items;
    let head = this.#head;
    while (head < items.length && !inFifo(items[head]!)) {
      // A started task's entry lets go of it now: kept until the next compaction, a deep queue's
      // finished tasks would all live on into the old generation, and cost the collector far more.
      items[head] = undefined;
      head++;
    }
    if (head === items.length) {
      this.#items = [];
      this.#head = 0;
      this.#last = -1;
    } else if (head > 1024 && head * 2 > items.length) {
      this.#items = items.slice(head);
      this.#head = 0;
    } else {
      this.#head = head;
    }
  }

  #compact(): void {
    const kept: T[] = [];
    const items = this.#items;
    for (let index = this.#head; index < items.length; index++)
      if (inFifo(items[index]!)) kept.push(items[index]!);
    this.#items = kept;
    this.#head = 0;
  }
}

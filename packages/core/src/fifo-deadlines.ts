import type { Deadlined } from "./deadlines.js";

/**
 * `heapIndex` of an item whose deadline sits in a {@link DeadlineFifo} (a heap uses 0 and up, -1 is none).
 *
 * @example
 * if (item.heapIndex === IN_FIFO) fifo.remove(item);
 */
export const IN_FIFO = -2;

/**
 * The queue deadlines of one priority, in the order they were set. Every task of a priority waits with
 * the same queue timeout, so deadlines arrive already sorted: adding is a push, the earliest is the
 * head. Removing an item only marks it (its `heapIndex` leaves {@link IN_FIFO}); marked entries are
 * dropped when they reach the head, or all at once when they outnumber the live ones, so a removal
 * costs O(1) amortized and a finished task is not kept alive for long.
 *
 * @example
 * const fifo = new DeadlineFifo<Task>();
 * if (due >= fifo.last) fifo.push(task); // task.deadline = due, set by the caller
 * const first = fifo.peek();
 * fifo.remove(task);
 */
export class DeadlineFifo<T extends Deadlined> {
  /** Entries from `#head` on; the slots before it are emptied, so that they keep no task alive. */
  #items: Array<T | undefined> = [];
  #head = 0;
  #live = 0;

  /** The latest deadline added (the tail's), or -1 when empty: a smaller one cannot be appended. */
  get last(): number {
    const items = this.#items;
    return items.length > this.#head ? items[items.length - 1]!.deadline : -1;
  }

  /** Entries held, live or marked removed (at most about twice the live ones). */
  get slots(): number {
    return this.#items.length - this.#head;
  }

  /** The live item with the earliest deadline, if any. */
  peek(): T | undefined {
    this.#skipRemoved();
    return this.#items[this.#head];
  }

  /** Appends `item`, whose `deadline` is at least {@link last}. */
  push(item: T): void {
    item.heapIndex = IN_FIFO;
    this.#items.push(item);
    this.#live++;
  }

  /** Unmarks `item` (which must be in this FIFO); its entry goes when it reaches the head or at compaction. */
  remove(item: T): void {
    item.heapIndex = -1;
    this.#live--;
    const items = this.#items;
    if (items[this.#head] === item) this.#skipRemoved();
    else if (items.length - this.#head > 2 * this.#live + 32) this.#compact();
  }

  /** Unmarks every item. */
  clear(): void {
    for (let index = this.#head; index < this.#items.length; index++) {
      const item = this.#items[index]!;
      if (item.heapIndex === IN_FIFO) item.heapIndex = -1;
    }
    this.#items = [];
    this.#head = 0;
    this.#live = 0;
  }

  #skipRemoved(): void {
    const items = this.#items;
    let head = this.#head;
    while (head < items.length && items[head]!.heapIndex !== IN_FIFO) {
      // A started task's entry lets go of it now: kept until the next compaction, a deep queue's
      // finished tasks would all live on into the old generation, and cost the collector far more.
      items[head] = undefined;
      head++;
    }
    if (head === items.length) {
      this.#items = [];
      this.#head = 0;
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
      if (items[index]!.heapIndex === IN_FIFO) kept.push(items[index]!);
    this.#items = kept;
    this.#head = 0;
  }
}

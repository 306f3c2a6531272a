/** An item that knows where it sits in a {@link IndexedHeap}, so that removal is O(log n), not a scan. */
export interface HeapItem {
  /** Position in the heap, or -1 when not in one. Owned by the heap. */
  heapIndex: number;
}

/**
 * A binary min-heap whose items record their own index: push, pop and remove of any item in O(log n).
 * Holds the run and grace deadlines (queue deadlines go to a FIFO per priority, see fifo-deadlines.ts).
 */
export class IndexedHeap<T extends HeapItem> {
  readonly #items: T[] = [];
  readonly #before: (a: T, b: T) => boolean;

  /** @param before true when `a` must come out before `b`. */
  constructor(before: (a: T, b: T) => boolean) {
    this.#before = before;
  }

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    item.heapIndex = this.#items.length;
    this.#items.push(item);
    this.#up(item.heapIndex);
  }

  pop(): T | undefined {
    const top = this.#items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /** Removes `item` if it is in this heap; returns whether it was. */
  remove(item: T): boolean {
    const index = item.heapIndex;
    if (index < 0 || this.#items[index] !== item) return false;
    const last = this.#items.pop()!;
    item.heapIndex = -1;
    if (last !== item) {
      this.#items[index] = last;
      last.heapIndex = index;
      this.#down(index);
      this.#up(last.heapIndex);
    }
    return true;
  }

  /** Removes every item. */
  clear(): void {
    for (const item of this.#items) item.heapIndex = -1;
    this.#items.length = 0;
  }

  #up(start: number): void {
    const items = this.#items;
    let index = start;
    const item = items[index]!;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = items[parentIndex]!;
      if (!this.#before(item, parent)) break;
      items[index] = parent;
      parent.heapIndex = index;
      index = parentIndex;
    }
    items[index] = item;
    item.heapIndex = index;
  }

  #down(start: number): void {
    const items = this.#items;
    const length = items.length;
    let index = start;
    const item = items[index]!;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      const child = right < length && this.#before(items[right]!, items[left]!) ? right : left;
      const childItem = items[child]!;
      if (!this.#before(childItem, item)) break;
      items[index] = childItem;
      childItem.heapIndex = index;
      index = child;
    }
    items[index] = item;
    item.heapIndex = index;
  }
}

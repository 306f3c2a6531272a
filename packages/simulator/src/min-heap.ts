/**
 * A binary min-heap ordered by `before`. Small on purpose: push, peek, pop. Callers that need removal
 * mark entries dead and skip them when they surface (lazy deletion).
 *
 * @example
 * const heap = new MinHeap<number>((a, b) => a < b);
 * heap.push(3); heap.push(1);
 * heap.pop(); // 1
 */
export class MinHeap<T> {
  readonly #items: T[] = [];
  readonly #before: (a: T, b: T) => boolean;

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
    const items = this.#items;
    items.push(item);
    let index = items.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.#before(items[index]!, items[parent]!)) break;
      [items[index], items[parent]] = [items[parent]!, items[index]!];
      index = parent;
    }
  }

  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.#sink(0);
    }
    return top;
  }

  #sink(start: number): void {
    const items = this.#items;
    let index = start;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let best = index;
      if (left < items.length && this.#before(items[left]!, items[best]!)) best = left;
      if (right < items.length && this.#before(items[right]!, items[best]!)) best = right;
      if (best === index) return;
      [items[index], items[best]] = [items[best]!, items[index]!];
      index = best;
    }
  }
}

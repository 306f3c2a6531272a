/**
 * A replica's prefix cache, as vLLM's automatic prefix caching keeps it: whole KV blocks of
 * `blockTokens` tokens, the least recently used prefix evicted first when a new one does not fit. Only
 * the shared prefix of a request (its system prompt) is modelled; the rest of each prompt is its own and
 * would never be hit.
 *
 * @example
 * const cache = new PrefixCache(64_000, 16);
 * cache.use("user-7", 4_000); // 0: a miss, now cached
 * cache.use("user-7", 4_000); // 4000: a hit
 */
export class PrefixCache {
  readonly #capacityBlocks: number;
  readonly #blockTokens: number;
  /** Prefix key -> blocks cached; a Map iterates in insertion order, so the first key is the oldest. */
  readonly #entries = new Map<string, number>();
  #usedBlocks = 0;
  /** Prefix tokens asked for so far, and how many of them were found cached. */
  askedTokens = 0;
  hitTokens = 0;

  constructor(capacityTokens: number, blockTokens: number) {
    this.#blockTokens = blockTokens;
    this.#capacityBlocks = Math.floor(capacityTokens / blockTokens);
  }

  /** Blocks in use, 0..1 of the capacity. */
  get usage(): number {
    return this.#capacityBlocks === 0 ? 0 : this.#usedBlocks / this.#capacityBlocks;
  }

  /**
   * How many of the prefix's `tokens` are already cached (whole blocks); then the prefix becomes the
   * most recently used, cached whole if it fits (evicting the least recently used ones).
   */
  use(key: string, tokens: number): number {
    const blocks = Math.floor(tokens / this.#blockTokens);
    const cached = this.#entries.get(key);
    let hit = 0;
    if (cached !== undefined) {
      hit = Math.min(cached, blocks) * this.#blockTokens;
      this.#entries.delete(key);
      this.#usedBlocks -= cached;
    }
    this.askedTokens += tokens;
    this.hitTokens += hit;
    if (blocks === 0 || blocks > this.#capacityBlocks) return hit;
    for (const [oldest, size] of this.#entries) {
      if (this.#usedBlocks + blocks <= this.#capacityBlocks) break;
      this.#entries.delete(oldest);
      this.#usedBlocks -= size;
    }
    this.#entries.set(key, blocks);
    this.#usedBlocks += blocks;
    return hit;
  }
}

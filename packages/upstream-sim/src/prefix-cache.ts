/** Characters per token, as the simulator estimates prompt tokens (see `tokens.ts`). */
const CHARS_PER_TOKEN = 4;

/**
 * A replica's prefix cache, as vLLM's automatic prefix caching keeps it: the prompt is cut into KV
 * blocks of `blockTokens` tokens, each named by a hash of everything up to its end (so a block is
 * only reused after the very same prefix); a new prompt reuses its longest run of leading blocks
 * already held, and the cache keeps at most `blocks` blocks, evicting the least recently used.
 * Only full blocks are cached.
 *
 * @example
 * const cache = new PrefixCache(1024, 16);
 * cache.admit(longSystemPrompt + "question 1"); // 0: nothing cached yet
 * cache.admit(longSystemPrompt + "question 2"); // the system prompt's full blocks, in tokens
 */
export class PrefixCache {
  readonly #capacity: number;
  readonly #blockChars: number;
  readonly #blockTokens: number;
  /** Block keys in least recently used first order (a `Map` keeps insertion order). */
  readonly #blocks = new Map<string, true>();
  #queriedTokens = 0;
  #hitTokens = 0;

  constructor(blocks: number, blockTokens: number) {
    this.#capacity = blocks;
    this.#blockTokens = blockTokens;
    this.#blockChars = blockTokens * CHARS_PER_TOKEN;
  }

  /** Blocks held now. */
  get size(): number {
    return this.#blocks.size;
  }

  /** Prompt tokens looked up, and found cached, since the start (vLLM's `prefix_cache_*` counters). */
  get counters(): { readonly queries: number; readonly hits: number } {
    return { queries: this.#queriedTokens, hits: this.#hitTokens };
  }

  /** Forgets every block (a restarted engine starts cold); the counters go on. */
  clear(): void {
    this.#blocks.clear();
  }

  /**
   * Looks `promptText` up and caches its full blocks: returns how many of its `promptTokens` tokens
   * were cached already (a multiple of `blockTokens`, at most `promptTokens`).
   */
  admit(promptText: string, promptTokens: number): number {
    if (this.#capacity === 0) return 0;
    const keys = this.#keysOf(promptText);
    let hits = 0;
    while (hits < keys.length && this.#blocks.has(keys[hits]!)) hits += 1;
    for (const key of keys) {
      this.#blocks.delete(key); // re-inserted at the most recent end
      this.#blocks.set(key, true);
    }
    while (this.#blocks.size > this.#capacity) {
      this.#blocks.delete(this.#blocks.keys().next().value!);
    }
    const cached = Math.min(promptTokens, hits * this.#blockTokens);
    this.#queriedTokens += promptTokens;
    this.#hitTokens += cached;
    return cached;
  }

  /** One key per full block: an FNV-1a hash chained over the text so far, with the block's index. */
  #keysOf(text: string): string[] {
    const keys: string[] = [];
    let hash = 0x811c9dc5;
    const full = Math.floor(text.length / this.#blockChars);
    for (let block = 0; block < full; block += 1) {
      const end = (block + 1) * this.#blockChars;
      for (let i = block * this.#blockChars; i < end; i += 1) {
        hash ^= text.charCodeAt(i);
        hash = Math.imul(hash, 0x01000193) >>> 0;
      }
      keys.push(`${block}:${hash.toString(36)}`);
    }
    return keys;
  }
}

/** A seeded pseudo-random generator: each call returns a number in `[0, 1)`. */
export type Random = () => number;

/**
 * Mixes any number of integers into one 32-bit seed, so related seeds give unrelated streams.
 *
 * @example
 * const seed = mixSeed(42, 7); // the seed of request 7 of a server seeded with 42
 */
export function mixSeed(...values: readonly number[]): number {
  let hash = 0x811c9dc5;
  for (const value of values) {
    hash = Math.imul(hash ^ (value | 0), 0x01000193);
    hash ^= hash >>> 15;
    hash = Math.imul(hash, 0x2c1b3c6d);
    hash ^= hash >>> 12;
  }
  return hash >>> 0;
}

/**
 * Creates a mulberry32 generator: small, fast and good enough for picking faults and filler words.
 * The same seed always gives the same sequence.
 *
 * @example
 * const random = createRandom(42);
 * random(); // the same number on every run
 */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

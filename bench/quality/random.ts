/** A seeded generator of numbers in [0, 1) (splitmix32): the same seed gives the same trace. */
export type Random = () => number;

export function seeded(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return ((z ^ (z >>> 16)) >>> 0) / 4_294_967_296;
  };
}

/** An exponentially distributed value with the given mean (gaps between Poisson arrivals). */
export function exponential(random: Random, mean: number): number {
  return -mean * Math.log(1 - random());
}

/** A value drawn uniformly from [low, high). */
export function between(random: Random, low: number, high: number): number {
  return low + (high - low) * random();
}

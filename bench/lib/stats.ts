/** Summary of repeated measurements of one quantity. */
export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly runs: readonly number[];
}

function sorted(values: readonly number[]): number[] {
  if (values.length === 0) throw new Error("Expected at least one value to summarize");
  return [...values].sort((a, b) => a - b);
}

/** The middle value (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  const ordered = sorted(values);
  const middle = ordered.length >> 1;
  return ordered.length % 2 === 1 ? ordered[middle]! : (ordered[middle - 1]! + ordered[middle]!) / 2;
}

/** The value at or below which a share `q` (0..1) of the values fall (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  const ordered = sorted(values);
  const rank = Math.max(1, Math.ceil(q * ordered.length));
  return ordered[Math.min(rank, ordered.length) - 1]!;
}

/**
 * A 95% confidence interval of the median of `values`, from their order statistics (no assumption on
 * the distribution): the range a rerun's median falls in, so a figure whose interval spans its goal is
 * not settled by the run.
 *
 * @example
 * const [low, high] = medianInterval(differences);
 */
export function medianInterval(values: readonly number[]): readonly [number, number] {
  const ordered = sorted(values);
  const half = 0.98 * Math.sqrt(ordered.length); // 1.96 standard deviations of a binomial(n, 1/2) / 2 each side
  const low = Math.max(1, Math.floor(ordered.length / 2 - half));
  const high = Math.min(ordered.length, Math.ceil(ordered.length / 2 + 1 + half));
  return [ordered[low - 1]!, ordered[high - 1]!];
}

export function summarize(values: readonly number[]): Summary {
  const ordered = sorted(values);
  return { median: median(ordered), min: ordered[0]!, max: ordered.at(-1)!, runs: values };
}

/**
 * Growth exponent between two sizes on a log-log scale: 1 when the total time grows linearly with the
 * size (flat cost per task), 2 when it grows quadratically.
 */
export function logSlope(sizeA: number, timeA: number, sizeB: number, timeB: number): number {
  return Math.log(timeB / timeA) / Math.log(sizeB / sizeA);
}

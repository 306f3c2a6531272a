/** Past this many half-lives from the landmark, weights are rescaled (2^64 keeps every double exact enough). */
const RESCALE_AT = 64;
/** A count that has decayed below this is dropped. */
const FORGOTTEN = 1e-3;

/**
 * Exponentially decayed counts per key, in bounded memory: an event's weight halves every `halfLifeMs`,
 * so the counts follow recent volume. Kept as forward decay (each event adds `2^((now - landmark) /
 * halfLife)`, so noting an event touches one entry); at most `2 × capacity` keys are held, and when that
 * fills, the `capacity` heaviest are kept. A key with more volume than the one-shot keys of a flood is
 * never the one dropped.
 *
 * @example
 * const counts = new DecayedCounts(60_000, 64);
 * counts.note("team-a", clock.now());
 * counts.read(clock.now()).get("team-a"); // 1
 */
export class DecayedCounts {
  readonly #halfLifeMs: number;
  readonly #capacity: number;
  #weights = new Map<string, number>();
  #landmark: number | undefined;

  constructor(halfLifeMs: number, capacity: number) {
    this.#halfLifeMs = halfLifeMs;
    this.#capacity = capacity;
  }

  /** Keys held now. */
  get size(): number {
    return this.#weights.size;
  }

  /** One event of `key` at `now`. */
  note(key: string, now: number): void {
    const weight = this.#weightAt(now);
    const current = this.#weights.get(key);
    if (current !== undefined) {
      this.#weights.set(key, current + weight);
      return;
    }
    if (this.#weights.size >= 2 * this.#capacity) this.#keepHeaviest(this.#capacity);
    this.#weights.set(key, weight);
  }

  /** The decayed counts at `now` (in events); keys decayed to almost nothing are forgotten. */
  read(now: number): Map<string, number> {
    const scale = 1 / this.#weightAt(now);
    const counts = new Map<string, number>();
    for (const [key, weight] of this.#weights) {
      const count = weight * scale;
      if (count < FORGOTTEN) this.#weights.delete(key);
      else counts.set(key, count);
    }
    return counts;
  }

  #weightAt(now: number): number {
    this.#landmark ??= now;
    const halvings = (now - this.#landmark) / this.#halfLifeMs;
    if (halvings <= RESCALE_AT) return 2 ** halvings;
    const scale = 2 ** -halvings;
    for (const [key, weight] of this.#weights) this.#weights.set(key, weight * scale);
    this.#landmark = now;
    return 1;
  }

  #keepHeaviest(count: number): void {
    const heaviest = [...this.#weights].sort((a, b) => b[1] - a[1]).slice(0, count);
    this.#weights = new Map(heaviest);
  }
}

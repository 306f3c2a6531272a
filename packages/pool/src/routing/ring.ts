import { hashString } from "./hash.js";

/**
 * A consistent-hash ring: each replica id sits at `virtualNodes` points (hashes of `id#k`). A key goes
 * to the first point clockwise from its hash; when that replica cannot take it, to the next distinct
 * replica, and so on. The ring depends only on the set of ids (not their order), and removing an id moves
 * only the keys whose walk met it first.
 *
 * @example
 * const ring = new HashRing(["r0", "r1", "r2"], 64);
 * ring.visit(hashString("p:1a2b3c4d"), (id) => id !== "r1"); // the first replica on the walk but r1
 */
export class HashRing {
  /** The ids on the ring, sorted. */
  readonly ids: readonly string[];
  readonly #points: Uint32Array;
  readonly #owners: Uint32Array;

  constructor(ids: readonly string[], virtualNodes: number) {
    this.ids = [...new Set(ids)].sort();
    const entries: Array<[point: number, owner: number]> = [];
    this.ids.forEach((id, owner) => {
      for (let k = 0; k < virtualNodes; k++) entries.push([hashString(`${id}#${k}`), owner]);
    });
    // Equal points (rare) are ordered by id, so the ring never depends on the input order.
    entries.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    this.#points = Uint32Array.from(entries, (entry) => entry[0]);
    this.#owners = Uint32Array.from(entries, (entry) => entry[1]);
  }

  /** True when the ring holds exactly these ids (in any order). */
  holds(ids: readonly string[]): boolean {
    if (ids.length !== this.ids.length) return false;
    const sorted = [...ids].sort();
    return sorted.every((id, index) => id === this.ids[index]);
  }

  /**
   * Walks the ring clockwise from `hash`, calling `take` once per distinct replica in the order met,
   * and returns the first id it accepts (`undefined` when none does).
   */
  visit(hash: number, take: (id: string) => boolean): string | undefined {
    const points = this.#points;
    const count = points.length;
    if (count === 0) return undefined;
    let low = 0;
    let high = count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (points[middle]! < hash) low = middle + 1;
      else high = middle;
    }
    const seen = new Uint8Array(this.ids.length);
    let left = this.ids.length;
    for (let step = 0; step < count && left > 0; step++) {
      const owner = this.#owners[(low + step) % count]!;
      if (seen[owner] === 1) continue;
      seen[owner] = 1;
      left--;
      const id = this.ids[owner]!;
      if (take(id)) return id;
    }
    return undefined;
  }
}

import type { ClaimOrder } from "./store.js";
import type { Batch } from "./types.js";

/**
 * The open batches cut into the groups `claim()` serves one after the other (see {@link ClaimOrder}).
 * Each priority's batches are sorted by their key (stable, so equal keys keep the order they opened
 * in) and cut into groups of the batches whose key is at most their group's first one's plus `tieMs`;
 * the n-th groups of every priority then make the n-th group served, so that the order holds within
 * a priority and the scheduler's weights, not the claims, decide between priorities.
 *
 * @example
 * for (const group of claimGroups(open, (s) => s.batch, order)) takeTurns(group);
 */
export function claimGroups<T>(open: readonly T[], batchOf: (entry: T) => Batch, order: ClaimOrder): T[][] {
  const keyOf = (entry: T): number =>
    order.key === "deadline" ? batchOf(entry).expiresAt : batchOf(entry).createdAt;
  const sorted = [...open].sort((a, b) => keyOf(a) - keyOf(b));
  const groups: T[][] = [];
  const cut = new Map<string, { rank: number; edge: number }>();
  for (const entry of sorted) {
    const key = keyOf(entry);
    const priority = batchOf(entry).priority;
    let at = cut.get(priority);
    if (at === undefined || key > at.edge) {
      at = { rank: (at?.rank ?? -1) + 1, edge: key + order.tieMs };
      cut.set(priority, at);
      if (groups.length <= at.rank) groups.push([]);
    }
    groups[at.rank]!.push(entry);
  }
  return groups;
}

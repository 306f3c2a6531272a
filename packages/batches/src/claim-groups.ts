import type { ClaimOrder } from "./store.js";
import type { Batch } from "./types.js";

/**
 * The open batches cut into the groups `claim()` serves one after the other (see {@link ClaimOrder}):
 * sorted by their key (stable, so equal keys keep the order they opened in), each group holding the
 * batches whose key is at most its first one's plus `tieMs`.
 *
 * @example
 * for (const group of claimGroups(open, (s) => s.batch, order)) takeTurns(group);
 */
export function claimGroups<T>(open: readonly T[], batchOf: (entry: T) => Batch, order: ClaimOrder): T[][] {
  const keyOf = (entry: T): number =>
    order.key === "deadline" ? batchOf(entry).expiresAt : batchOf(entry).createdAt;
  const sorted = [...open].sort((a, b) => keyOf(a) - keyOf(b));
  const groups: T[][] = [];
  let edge = Number.NEGATIVE_INFINITY;
  for (const entry of sorted) {
    const key = keyOf(entry);
    if (key > edge) {
      groups.push([]);
      edge = key + order.tieMs;
    }
    groups[groups.length - 1]!.push(entry);
  }
  return groups;
}

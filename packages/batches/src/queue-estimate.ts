import { claimGroups } from "./claim-groups.js";
import type { ClaimOrder } from "./store.js";
import type { Batch } from "./types.js";

/** A batch's rate counts toward its priority's only once this many items of its round have ended. */
const STEADY_ENDED = 20;
/** A batch that completed this long ago (ms) still tells its priority's rate. */
const RECENT_MS = 30 * 60_000;

const remainingOf = (batch: Batch): number =>
  Math.max(0, batch.requestCounts.total - batch.requestCounts.completed - batch.requestCounts.failed);

/**
 * The priority's rate (items per ms): the fastest rate, from their first claim to now (or to their
 * end), among its open batches and those that completed in the last {@link RECENT_MS}, over those with
 * {@link STEADY_ENDED} items ended. The batch at the head of the claim order runs at the priority's
 * whole share; one that was passed by another ran slower on average, so the fastest is the nearest to
 * the share. `null` when no batch has run long enough.
 */
function priorityRate(sources: readonly Batch[], now: number): number | null {
  let best: number | null = null;
  for (const source of sources) {
    const since = source.runningSince;
    if (since === null) continue;
    const ended = source.requestCounts.completed + source.requestCounts.failed - since.done;
    const elapsed = (source.completedAt ?? now) - since.at;
    if (ended < STEADY_ENDED || elapsed <= 0) continue;
    best = Math.max(best ?? 0, ended / elapsed);
  }
  return best;
}

/**
 * When a batch should end from its place in the claim order: the items of its priority's open batches
 * (among `others`, the open batches and the recently completed ones)
 * in the groups ahead of it, plus its own, and within its group (where tenants take turns) up to its
 * own remaining count of each peer's, divided by the priority's rate, never later than `expiresAt`.
 * Batches that open later with an earlier deadline cannot be counted: the estimate is early by their
 * work. `null` when the batch is not `in_progress`, or no rate of its priority is known yet.
 *
 * @example
 * queueEstimate(batch, await estimateInputs(store), order, clock.now());
 */
export function queueEstimate(
  batch: Batch,
  others: readonly Batch[],
  order: ClaimOrder,
  now: number,
): number | null {
  if (batch.status !== "in_progress") return null;
  const same = others.filter((b) => b.id !== batch.id && b.priority === batch.priority);
  const peers = [batch, ...same.filter((b) => b.status === "in_progress")];
  const recent = same.filter((b) => b.status === "completed" && b.completedAt! >= now - RECENT_MS);
  const rate = priorityRate([...peers, ...recent], now);
  if (rate === null) return null;
  const own = remainingOf(batch);
  let work = 0;
  for (const group of claimGroups(peers, (b) => b, order)) {
    if (group.includes(batch)) {
      for (const peer of group) work += Math.min(remainingOf(peer), own);
      break;
    }
    for (const peer of group) work += remainingOf(peer);
  }
  return Math.min(batch.expiresAt, Math.round(now + work / rate));
}

import { queueEstimate } from "./queue-estimate.js";
import type { BatchStore, ClaimOrder } from "./store.js";
import type { Batch, BatchView } from "./types.js";

/**
 * When a batch should end, at the rate its items have ended since it began to run in this round:
 * `now + remaining × elapsed / ended`, rounded to the ms, and never later than `expiresAt` (the batch
 * ends by then, completed or expired). `null` while it is not `in_progress`, before
 * its first claim, and until one item of the round has ended (no rate yet).
 *
 * @example
 * estimatedCompletionAt(batch, clock.now()); // e.g. 1_700_000_900_000
 */
export function estimatedCompletionAt(batch: Batch, now: number): number | null {
  const since = batch.runningSince;
  if (batch.status !== "in_progress" || since === null) return null;
  const { total, completed, failed } = batch.requestCounts;
  const ended = completed + failed - since.done;
  const elapsed = now - since.at;
  if (ended <= 0 || elapsed <= 0) return null;
  const remaining = Math.max(0, total - completed - failed);
  // never past the window's end: by then the batch has ended, completed or expired
  return Math.min(batch.expiresAt, Math.round(now + (remaining * elapsed) / ended));
}

/**
 * What {@link queueEstimate} measures a batch against: every `in_progress` batch of the store, read in
 * pages of 100, and the newest 100 `completed` ones (for the rate of their priority).
 *
 * @example
 * const others = await estimateInputs(store);
 */
export async function estimateInputs(store: BatchStore): Promise<Batch[]> {
  const others = await store.listBatches({ status: "completed", limit: 100 });
  for (let after: string | undefined; ; ) {
    const page = await store.listBatches({ status: "in_progress", limit: 100, ...(after ? { after } : {}) });
    others.push(...page);
    if (page.length < 100) return others;
    after = page[page.length - 1]!.id;
  }
}

/**
 * The batch with its completion estimate, as `get()` and `list()` answer: from its place in the claim
 * order among `others` (see {@link estimateInputs}) ({@link queueEstimate}), or, while its priority has no rate yet, from
 * its own rate ({@link estimatedCompletionAt}).
 *
 * @example
 * const view = withEstimate(batch, await estimateInputs(store), order, clock.now());
 */
export function withEstimate(
  batch: Batch,
  others: readonly Batch[],
  order: ClaimOrder,
  now: number,
): BatchView {
  const estimate = queueEstimate(batch, others, order, now) ?? estimatedCompletionAt(batch, now);
  return { ...batch, estimatedCompletionAt: estimate };
}

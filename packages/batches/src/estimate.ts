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
 * The batch with its completion estimate, as `get()` and `list()` answer.
 *
 * @example
 * const view = withEstimate(await store.getBatch(id), clock.now());
 */
export function withEstimate(batch: Batch, now: number): BatchView {
  return { ...batch, estimatedCompletionAt: estimatedCompletionAt(batch, now) };
}

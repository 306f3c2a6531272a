import type { Batch, BatchStatus, ItemError, RequestCounts } from "./types.js";

/** A batch record that a store may change in place. */
export type MutableBatch = { -readonly [K in keyof Batch]: Batch[K] };

/**
 * The error of an item that the window's end caught unfinished.
 *
 * @example
 * const result = { customId, response: null, error: EXPIRED, attempts };
 */
export const EXPIRED: ItemError = {
  code: "batch_expired",
  message: "This request could not be executed before the completion window expired.",
};

/**
 * The error of an item that a cancel caught unfinished.
 *
 * @example
 * const result = { customId, response: null, error: CANCELLED, attempts };
 */
export const CANCELLED: ItemError = {
  code: "batch_cancelled",
  message: "This request was not executed because the batch was cancelled.",
};

/**
 * True while a batch may still run items.
 *
 * @example
 * if (!isOpen(batch.status)) return undefined;
 */
export function isOpen(status: BatchStatus): boolean {
  return status === "in_progress";
}

/**
 * Counts one more final item; when none is left open the batch passes `finalizing` and `completed`.
 *
 * @example
 * countFinal(batch, error === null, now);
 */
export function countFinal(batch: MutableBatch, success: boolean, now: number): void {
  const counts: RequestCounts = batch.requestCounts;
  batch.requestCounts = {
    total: counts.total,
    completed: counts.completed + (success ? 1 : 0),
    failed: counts.failed + (success ? 0 : 1),
  };
  if (batch.status === "in_progress" && isSettled(batch.requestCounts)) complete(batch, now);
}

/**
 * Every item has its final result.
 *
 * @example
 * isSettled({ total: 3, completed: 2, failed: 1 }); // true
 */
export function isSettled(counts: RequestCounts): boolean {
  return counts.completed + counts.failed >= counts.total;
}

/**
 * `finalizing` then `completed`: the results are already stored, nothing more is written.
 *
 * @example
 * complete(batch, clock.now());
 */
export function complete(batch: MutableBatch, now: number): void {
  batch.status = "completed";
  batch.finalizingAt = now;
  batch.completedAt = now;
}

/**
 * Ends a batch with the items still open counted as failed (expired or cancelled).
 *
 * @example
 * close(batch, "expired", openItems, now);
 */
export function close(batch: MutableBatch, status: "expired" | "cancelled", open: number, now: number): void {
  const counts = batch.requestCounts;
  batch.requestCounts = { total: counts.total, completed: counts.completed, failed: counts.failed + open };
  batch.status = status;
  if (status === "expired") batch.expiredAt = now;
  else {
    batch.cancellingAt = now;
    batch.cancelledAt = now;
  }
}

/**
 * Reopens a batch for `again` failed items: `in_progress`, a new window, the final timestamps cleared.
 *
 * @example
 * reopen(batch, failedItems.length, now);
 */
export function reopen(batch: MutableBatch, again: number, now: number): void {
  const counts = batch.requestCounts;
  batch.requestCounts = { total: counts.total, completed: counts.completed, failed: counts.failed - again };
  batch.status = "in_progress";
  batch.expiresAt = now + batch.completionWindowMs;
  batch.runningSince = null;
  batch.finalizingAt = null;
  batch.completedAt = null;
  batch.expiredAt = null;
  batch.cancellingAt = null;
  batch.cancelledAt = null;
}

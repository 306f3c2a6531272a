import { invalidOption } from "@llm-scheduler/core/kit";

/**
 * Every code a {@link BatchError} can carry. Stable: safe to switch on.
 *
 * @example
 * if (error instanceof BatchError && error.code === BatchErrorCode.BATCH_NOT_FOUND) return 404;
 */
export const BatchErrorCode = {
  /** No batch with this id (or not one the caller's tenant may see). */
  BATCH_NOT_FOUND: "BATCH_NOT_FOUND",
  /** No file with this id (or not one the caller's tenant may see). */
  FILE_NOT_FOUND: "FILE_NOT_FOUND",
  /** The batch layer is closed. */
  CLOSED: "CLOSED",
} as const;

export type BatchErrorCode = (typeof BatchErrorCode)[keyof typeof BatchErrorCode];

/**
 * What the batch layer throws besides `SchedulerError` (`INVALID_OPTION` for invalid input).
 *
 * @example
 * try { await batches.cancel("batch_x"); } catch (error) {
 *   if (error instanceof BatchError && error.code === "BATCH_NOT_FOUND") console.log("no such batch");
 * }
 */
export class BatchError extends Error {
  readonly code: BatchErrorCode;

  constructor(code: BatchErrorCode, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * The error for an unknown batch id.
 *
 * @example
 * if (batch === undefined) throw batchNotFound(id);
 */
export function batchNotFound(id: string): BatchError {
  return new BatchError(BatchErrorCode.BATCH_NOT_FOUND, `No batch found with id \`${id.slice(0, 128)}\``);
}

/**
 * Checks a batch id given to `get`, `results`, `cancel` or `retryFailed`: a string, else
 * `INVALID_OPTION` (a string that names no batch is simply not found).
 *
 * @example
 * const checked = batchIdOf(id);
 */
export function batchIdOf(id: unknown): string {
  if (typeof id !== "string") throw invalidOption("id", "a batch id (a string)", id);
  return id;
}

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
  /** The tenant already keeps as many files, or as many bytes of files, as its quota allows. */
  FILES_QUOTA_EXCEEDED: "FILES_QUOTA_EXCEEDED",
  /** The store holds as many bytes of files as it may (all tenants together). */
  FILE_STORAGE_FULL: "FILE_STORAGE_FULL",
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

/** How the HTTP layer answers each {@link BatchErrorCode}: its status and OpenAI-style `code`. */
const HTTP: Readonly<Record<BatchErrorCode, { readonly status: number; readonly code: string }>> = {
  BATCH_NOT_FOUND: { status: 404, code: "not_found" },
  FILE_NOT_FOUND: { status: 404, code: "not_found" },
  CLOSED: { status: 503, code: "closed" },
  FILES_QUOTA_EXCEEDED: { status: 429, code: "files_quota_exceeded" },
  FILE_STORAGE_FULL: { status: 503, code: "file_storage_full" },
};

/**
 * The HTTP status and OpenAI-style error `code` of a batch error: 404 for what is not found, 429 for
 * a tenant over its file quota, 503 for a closed layer or a full store.
 *
 * @example
 * batchErrorHttp("FILES_QUOTA_EXCEEDED"); // { status: 429, code: "files_quota_exceeded" }
 */
export function batchErrorHttp(code: BatchErrorCode): { readonly status: number; readonly code: string } {
  return HTTP[code];
}

/**
 * The error for a tenant whose files would pass its quota: `what` names the cap (`files` or `bytes`).
 *
 * @example
 * throw filesQuotaExceeded("bytes", 1_073_741_824);
 */
export function filesQuotaExceeded(what: "files" | "bytes", limit: number): BatchError {
  const cap = what === "files" ? `${limit} files` : `${limit} bytes of files`;
  return new BatchError(
    BatchErrorCode.FILES_QUOTA_EXCEEDED,
    `The file quota is exceeded: a tenant keeps at most ${cap}; delete files or wait for them to expire`,
  );
}

/**
 * The error for a store that holds as many bytes of files as it may.
 *
 * @example
 * throw fileStorageFull(1_073_741_824);
 */
export function fileStorageFull(limit: number): BatchError {
  return new BatchError(
    BatchErrorCode.FILE_STORAGE_FULL,
    `The file storage is full (${limit} bytes in all); try again later`,
  );
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

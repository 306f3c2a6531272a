import type { FileRecord } from "../store.js";
import type { Batch, BatchView, ItemResult } from "../types.js";

const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

/**
 * The completion window as OpenAI writes it (`24h`), or in minutes when not whole hours.
 *
 * @example
 * windowText(86_400_000); // "24h"
 */
export function windowText(ms: number): string {
  return ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : `${Math.round(ms / 60_000)}m`;
}

/**
 * Parses `24h`, `90m` or `30s` into milliseconds; undefined when invalid or beyond 30 days.
 *
 * @example
 * parseWindow("24h"); // 86_400_000
 */
export function parseWindow(text: unknown): number | undefined {
  const match = typeof text === "string" ? /^([1-9]\d{0,6})(h|m|s)$/.exec(text) : null;
  if (match === null) return undefined;
  const ms = Number(match[1]) * { h: 3_600_000, m: 60_000, s: 1_000 }[match[2] as "h" | "m" | "s"];
  return ms <= 2_592_000_000 ? ms : undefined;
}

/**
 * A batch as OpenAI's API returns it (snake case, times in seconds, output and error files set once
 * there is something in them).
 *
 * @example
 * return json(200, batchObject(batch));
 */
export function batchObject(batch: Batch | BatchView): Record<string, unknown> {
  const final = ["completed", "expired", "cancelled"].includes(batch.status);
  const counts = batch.requestCounts;
  return {
    id: batch.id,
    object: "batch",
    endpoint: batch.endpoint,
    errors: batch.errors === null ? null : { object: "list", data: batch.errors },
    input_file_id: batch.inputFileId,
    completion_window: windowText(batch.completionWindowMs),
    status: batch.status,
    output_file_id: final && counts.completed > 0 ? batch.outputFileId : null,
    error_file_id: final && counts.failed > 0 ? batch.errorFileId : null,
    created_at: seconds(batch.createdAt),
    in_progress_at: seconds(batch.inProgressAt),
    expires_at: seconds(batch.expiresAt),
    finalizing_at: seconds(batch.finalizingAt),
    completed_at: seconds(batch.completedAt),
    failed_at: seconds(batch.failedAt),
    expired_at: seconds(batch.expiredAt),
    cancelling_at: seconds(batch.cancellingAt),
    cancelled_at: seconds(batch.cancelledAt),
    request_counts: counts,
    metadata: batch.metadata,
    // not in OpenAI's object: when the batch should end at its rate so far (null without an estimate)
    estimated_completion_at: seconds("estimatedCompletionAt" in batch ? batch.estimatedCompletionAt : null),
  };
}

/**
 * A file object as OpenAI's API returns it.
 *
 * @example
 * return json(200, fileObject(file));
 */
export function fileObject(
  file: Omit<FileRecord, "expiresAt"> & { readonly expiresAt: number | null },
): Record<string, unknown> {
  return {
    id: file.id,
    object: "file",
    bytes: file.bytes,
    created_at: seconds(file.createdAt),
    expires_at: seconds(file.expiresAt),
    filename: file.filename,
    purpose: file.purpose,
    status: "processed",
    status_details: null,
  };
}

/**
 * One line of an output or error file, in OpenAI's format: `{ id, custom_id, response: { status_code,
 * request_id, body }, error }`. A failure with an upstream answer carries the answer and `error: null`,
 * one without (expired, cancelled, connection error) carries `response: null` and the error.
 *
 * @example
 * writer.write(`${resultLine(batch.id, result)}\n`);
 */
export function resultLine(batchId: string, result: ItemResult): string {
  const response =
    result.response === null
      ? null
      : {
          status_code: result.response.statusCode,
          request_id: result.response.requestId,
          body: result.response.body,
        };
  return JSON.stringify({
    id: `batch_req_${batchId.replace(/^batch_/, "")}_${result.index}`,
    custom_id: result.customId,
    response,
    error: response === null ? result.error : null,
  });
}

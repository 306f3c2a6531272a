import { ErrorCode } from "./errors.js";

/** Codes that name how a started task ended; any other failure is plain `failed`. */
const FAILED_OUTCOMES: Readonly<Record<string, string>> = {
  [ErrorCode.RUN_TIMEOUT]: "run_timeout",
  [ErrorCode.ABORTED]: "aborted",
  [ErrorCode.CLOSED]: "closed",
  [ErrorCode.PREEMPTED]: "preempted",
};

/**
 * How a task that started and then failed with `code` ended, as one lower-case word for metric labels
 * and span attributes (`run_timeout`, `aborted`, `closed`, `preempted`, else `failed`), the same in every exporter.
 *
 * @example
 * scheduler.on("failed", (event) => counter.inc({ outcome: failedOutcome(event.code) }));
 */
export function failedOutcome(code: string | undefined): string {
  return (code !== undefined && Object.hasOwn(FAILED_OUTCOMES, code) && FAILED_OUTCOMES[code]) || "failed";
}

/**
 * One line of the access log. Never a credential or a prompt: the tenant comes from the key table, the
 * id from `x-request-id` or the scheduler.
 */
export interface AccessEntry {
  readonly id: string | undefined;
  readonly method: string;
  readonly path: string;
  readonly tenant: string | undefined;
  readonly model: string | undefined;
  readonly priority: string | undefined;
  /** Time in the scheduler's queue, ms. */
  readonly waitMs: number | undefined;
  /** From arrival to the first byte of the answer's body, ms. */
  readonly ttfbMs: number | undefined;
  /** From arrival to the end of the answer, ms. */
  readonly durationMs: number;
  readonly status: number;
  /** `completed`, `rejected` (the gateway answered: auth, limits, queue), `client_closed` or `upstream_error`. */
  readonly outcome: string;
}

/** Receives each access line (pino's `logger.info(entry)` in the bin). */
export type AccessLog = (entry: AccessEntry) => void;

/** Milliseconds rounded to a tenth. */
export const ms = (from: number, to: number): number => Math.round((to - from) * 10) / 10;

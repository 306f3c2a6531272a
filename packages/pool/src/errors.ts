/** Every code a {@link PoolError} can carry; stable, safe to switch on. */
export const PoolErrorCode = {
  /** No healthy replica was left to try (all ejected, or all tried already for this request). */
  NO_REPLICA: "NO_REPLICA",
  /** Every attempt failed before its first byte (connection refused or reset) and no retry was left. */
  UPSTREAM_UNAVAILABLE: "UPSTREAM_UNAVAILABLE",
} as const;

export type PoolErrorCode = (typeof PoolErrorCode)[keyof typeof PoolErrorCode];

/**
 * What `pool.fetch()` rejects with when the pool itself could not serve the request; `status` is the
 * HTTP status to answer with (503 for `NO_REPLICA`, 502 for `UPSTREAM_UNAVAILABLE`). Rejections of the
 * scheduler (`QUEUE_FULL`, `ABORTED`, ...) and invalid options come as the core's `SchedulerError`.
 *
 * @example
 * try { await pool.fetch("/v1/models"); } catch (error) { if (error instanceof PoolError) console.log(error.code, error.status); }
 */
export class PoolError extends Error {
  readonly code: PoolErrorCode;
  readonly status: number;

  constructor(code: PoolErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "PoolError";
    this.code = code;
    this.status = code === PoolErrorCode.UPSTREAM_UNAVAILABLE ? 502 : 503;
  }
}

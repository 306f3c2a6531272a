/** A batch's status, exactly as OpenAI's Batch API names them. */
export type BatchStatus =
  | "validating"
  | "in_progress"
  | "finalizing"
  | "completed"
  | "failed"
  | "expired"
  | "cancelling"
  | "cancelled";

/**
 * The statuses after which nothing runs any more (`retryFailed` may reopen one).
 *
 * @example
 * if (FINAL_STATUSES.includes(batch.status)) console.log("done");
 */
export const FINAL_STATUSES: readonly BatchStatus[] = ["completed", "failed", "expired", "cancelled"];

/** One request of a batch, as given to `create()`. */
export interface BatchItemInput {
  /** Your id for the item, unique within the batch; results carry it back. */
  readonly customId: string;
  /** HTTP method of the upstream call: `POST`, the only one OpenAI's Batch API accepts. @default "POST" */
  readonly method?: string;
  /** Path of the upstream call, exactly one of `BATCH_ENDPOINTS`, e.g. `/v1/chat/completions`. */
  readonly url: string;
  /** The JSON body sent upstream. */
  readonly body?: unknown;
}

/** An item as the store keeps it. */
export interface BatchItem {
  readonly index: number;
  readonly customId: string;
  readonly method: string;
  readonly url: string;
  readonly body: unknown;
}

/** What an executor answers for one call: the upstream's status, JSON (or text) body and headers. */
export interface ExecuteResult {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What an executor receives for one attempt. */
export interface ExecuteContext {
  readonly item: BatchItem;
  readonly batchId: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Fires on run timeout, cancel, expiry, lost claim and `close()`: pass it to the upstream call. */
  readonly signal: AbortSignal;
}

/** Runs one item upstream; `openaiExecutor()` is one, any function of this shape is another. */
export type Execute = (context: ExecuteContext) => Promise<ExecuteResult>;

/** One attempt of an item, as recorded. */
export interface Attempt {
  /** When it started (the clock's milliseconds). */
  readonly startedAt: number;
  readonly durationMs: number;
  /** The upstream status, when an answer came. */
  readonly status?: number;
  /** Why it failed, when it did: an error code such as `RUN_TIMEOUT`, `connection_error`, `http_429`. */
  readonly error?: string;
}

/** An item's error in OpenAI's shape. */
export interface ItemError {
  readonly code: string;
  readonly message: string;
  /** The input file's line, for a batch that failed validation. */
  readonly line?: number;
  /** The field of that line at fault (`custom_id`, `method`, `url`, `body`), when known. */
  readonly param?: string | null;
}

/** The final outcome of one item. */
export interface ItemResult {
  readonly index: number;
  readonly customId: string;
  /** The upstream's last answer, when one came (also for a final 4xx). */
  readonly response: {
    readonly statusCode: number;
    readonly requestId: string;
    readonly body: unknown;
  } | null;
  /** Set when the item did not succeed (`batch_expired`, `batch_cancelled`, `http_400`, ...). */
  readonly error: ItemError | null;
  readonly attempts: readonly Attempt[];
}

/** Counts of a batch's items, as OpenAI's `request_counts`. */
export interface RequestCounts {
  readonly total: number;
  /** Items that succeeded. */
  readonly completed: number;
  /** Items that ended without success (final error, attempts used up, expired, cancelled). */
  readonly failed: number;
}

/** Retry policy of a batch. */
export interface RetryPolicy {
  /** Attempts per item, the first included. */
  readonly maxAttempts: number;
  /** Base delay of the exponential backoff (full jitter: a uniform draw in `[0, min(maxMs, baseMs * 2^n))`). */
  readonly baseMs: number;
  /** Longest delay between attempts. */
  readonly maxMs: number;
}

/** A batch as `get()` and `list()` return it. */
export interface Batch {
  readonly id: string;
  readonly tenant: string;
  readonly status: BatchStatus;
  readonly priority: string;
  /** The endpoint every item calls (`/v1/chat/completions`), when one was given. */
  readonly endpoint: string | null;
  readonly inputFileId: string | null;
  readonly outputFileId: string | null;
  readonly errorFileId: string | null;
  readonly completionWindowMs: number;
  readonly retry: RetryPolicy;
  readonly requestCounts: RequestCounts;
  readonly metadata: Readonly<Record<string, string>> | null;
  /** Why a batch is `failed` (its input was invalid). */
  readonly errors: readonly ItemError[] | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly inProgressAt: number | null;
  readonly finalizingAt: number | null;
  readonly completedAt: number | null;
  readonly failedAt: number | null;
  readonly expiredAt: number | null;
  readonly cancellingAt: number | null;
  readonly cancelledAt: number | null;
  /**
   * When this round's first item was handed out to run, and how many items were final then (a
   * `retryFailed` round starts again): what the completion estimate measures the batch's rate from.
   * `null` until an item of the round is claimed.
   */
  readonly runningSince: { readonly at: number; readonly done: number } | null;
}

/** A batch as `get()` and `list()` of the batch layer return it: with its completion estimate. */
export interface BatchView extends Batch {
  /**
   * When the batch should end (the clock's ms): the items ahead of it in the claim order and its own,
   * at its priority's recent rate, never later than `expiresAt`; `null` until one item of the round has
   * ended, and once the batch is no longer `in_progress`. Batches that open later with an earlier
   * deadline go ahead of it unforeseen.
   * OpenAI's batch object has no such field: HTTP answers carry it as `estimated_completion_at`.
   */
  readonly estimatedCompletionAt: number | null;
}

/** Filters of `list()`. */
export interface ListOptions {
  /** Only this tenant's batches. */
  readonly tenant?: string;
  readonly status?: BatchStatus;
  /** A batch id: only batches created before it (the page after it, newest first). */
  readonly after?: string;
  /** At most this many, 1 to 100. @default 20 */
  readonly limit?: number;
}

/**
 * Every batch status, in OpenAI's order.
 *
 * @example
 * if (!BATCH_STATUSES.includes(status)) throw new Error("unknown status");
 */
export const BATCH_STATUSES: readonly BatchStatus[] = [
  "validating",
  "in_progress",
  "finalizing",
  "completed",
  "failed",
  "expired",
  "cancelling",
  "cancelled",
];

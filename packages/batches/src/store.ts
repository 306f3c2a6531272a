import type { Attempt, Batch, BatchItem, ItemError, ItemResult, ListOptions, RetryPolicy } from "./types.js";

/** An item handed to one instance to run, until its visibility deadline. */
export interface Claim {
  readonly batchId: string;
  readonly tenant: string;
  readonly priority: string;
  readonly retry: RetryPolicy;
  readonly item: BatchItem;
  /** Fencing token: a settle or extend with an older token loses. */
  readonly token: number;
  /** Attempts already made in this round (0 for a first attempt). */
  readonly attemptsMade: number;
}

/** How one attempt ended, as the runner reports it to the store. */
export type Outcome =
  /** The item is done: it succeeded (`error` null), or failed for good; `attempt` is recorded. */
  | {
      readonly kind: "final";
      readonly response: ItemResult["response"];
      readonly error: ItemError | null;
      readonly attempt: Attempt;
    }
  /** Try again at `dueAt`; `attempt` is recorded. */
  | { readonly kind: "retry"; readonly dueAt: number; readonly attempt: Attempt }
  /** This instance gives the item back without an attempt (closing): another may take it at once. */
  | { readonly kind: "release" };

/**
 * The order in which `claim()` hands out the items of different batches. Batches are taken in order of
 * their `key` (`"deadline"`: the end of the completion window, earliest first; `"created"`: creation
 * time, oldest first, that is FIFO across batches); the batches whose key lies within `tieMs` of the
 * first one still open form a group, and within a group tenants take turns, then each tenant's batches.
 * The next group gets only what the first one has no due item for.
 */
export interface ClaimOrder {
  readonly key: "deadline" | "created";
  /** Keys this close to the group's first count as tied (shared by tenant turns). 0 to 1 year. */
  readonly tieMs: number;
}

/**
 * The order `claim()` uses when none is given: earliest deadline first, deadlines within a minute tied.
 *
 * @example
 * await store.claim(owner, 10, now, 30_000, DEFAULT_CLAIM_ORDER);
 */
export const DEFAULT_CLAIM_ORDER: ClaimOrder = { key: "deadline", tieMs: 60_000 };

/** What `claim()` answers. */
export interface ClaimReply {
  readonly claims: readonly Claim[];
  /** When the next delayed item becomes due, if any waits. */
  readonly nextDueAt: number | undefined;
}

/** What a settle tells about the batch: enough for the `progress` and `done` events. */
export type BatchSummary = Pick<Batch, "id" | "status" | "requestCounts">;

/** The new state of a batch after a settle that was accepted. */
export interface SettleReply {
  readonly batch: BatchSummary;
}

/** A stored input file. */
export interface FileRecord {
  readonly id: string;
  readonly tenant: string;
  readonly purpose: string;
  readonly filename: string;
  readonly bytes: number;
  readonly lines: number;
  readonly createdAt: number;
  /** When the file expires (the clock's ms; OpenAI's `expires_at`): a sweep then deletes it. */
  readonly expiresAt: number;
}

/**
 * Caps on one tenant's stored input files, checked by the store in the same atomic step as the write
 * they guard (so that concurrent uploads cannot pass them together).
 */
export interface FileQuota {
  /** Most bytes of input files one tenant keeps at once. */
  readonly maxBytes: number;
  /** Most input files one tenant keeps at once. */
  readonly maxFiles: number;
}

/**
 * Where batches, items, results and input files live: in memory by default, in Redis with
 * `redisBatchStore()` from `@llm-scheduler/redis` (durable and shared by every instance). Every step
 * that changes an item or a batch is one atomic call, so that several instances can share one store:
 * an item is claimed by one instance with a fencing token and a visibility deadline; a settle or an
 * extend with a stale token is refused; an item whose deadline passes may be claimed again.
 *
 * @example
 * class MyStore implements BatchStore { ... } // see MemoryBatchStore for a complete one
 */
export interface BatchStore {
  /** Saves a new batch (status `validating`, no items yet). */
  createBatch(batch: Batch): Promise<void>;
  /** Adds items to a `validating` batch (called in chunks for big batches). */
  addItems(batchId: string, items: readonly BatchItem[]): Promise<void>;
  /** `validating` -> `in_progress` with `total` items; they become claimable. */
  startBatch(batchId: string, total: number, now: number): Promise<Batch | undefined>;
  /** `validating` -> `failed` (the input was invalid); drops its items. */
  failBatch(batchId: string, errors: readonly ItemError[], now: number): Promise<Batch | undefined>;
  getBatch(batchId: string): Promise<Batch | undefined>;
  /** Newest first. */
  listBatches(options: ListOptions): Promise<Batch[]>;
  /**
   * Up to `limit` due items for `owner`, each with a fresh token and a deadline of `now + visibilityMs`,
   * batches taken in `order` ({@link DEFAULT_CLAIM_ORDER} when not given). The first claim of a round
   * sets the batch's `runningSince`.
   */
  claim(
    owner: string,
    limit: number,
    now: number,
    visibilityMs: number,
    order?: ClaimOrder,
  ): Promise<ClaimReply>;
  /** Moves the deadlines of claims still held; answers the claims that were lost (stale token). */
  extend(claims: readonly Claim[], now: number, visibilityMs: number): Promise<Claim[]>;
  /** Reports an attempt's outcome; `undefined` when the claim was lost (the write is refused). */
  settle(claim: Claim, outcome: Outcome, now: number): Promise<SettleReply | undefined>;
  /** Ends every item not yet final as `batch_cancelled`; the batch becomes `cancelled`. */
  cancel(batchId: string, now: number): Promise<Batch | undefined>;
  /** Puts the failed items back in the queue; the batch is `in_progress` again with a new window. */
  retryFailed(batchId: string, now: number): Promise<Batch | undefined>;
  /**
   * Expires the batches whose window has ended (their open items end as `batch_expired`), and deletes
   * the input files expired by `now` (giving their bytes back to their tenant).
   */
  sweep(now: number): Promise<Batch[]>;
  /** Final results in item order, from index `from`, at most `limit`. */
  results(batchId: string, from: number, limit: number): Promise<ItemResult[]>;
  /**
   * Saves a new, empty file after deleting the files expired by `file.createdAt`. Throws a `BatchError`
   * `FILES_QUOTA_EXCEEDED` (nothing saved) when its tenant already keeps `quota.maxFiles` files.
   */
  createFile(file: FileRecord, quota: FileQuota): Promise<void>;
  /**
   * Appends lines to a file being uploaded and sets its size to `bytes`, reserving the growth against
   * its tenant's `quota.maxBytes`. Throws `FILES_QUOTA_EXCEEDED` (or `FILE_STORAGE_FULL` for a store-wide
   * cap) and appends nothing when the growth does not fit; a file that is gone is left alone.
   */
  appendFileLines(fileId: string, lines: readonly string[], bytes: number, quota: FileQuota): Promise<void>;
  /** Moves a file's expiry (`expires_after` sent after the file's content). */
  setFileExpiry(fileId: string, expiresAt: number): Promise<void>;
  getFile(fileId: string): Promise<FileRecord | undefined>;
  /** Lines of a file, from line `from` (0-based), at most `limit`. */
  fileLines(fileId: string, from: number, limit: number): Promise<string[]>;
  /** Deletes a file and gives its bytes and its place back to its tenant's quota (once). */
  deleteFile(fileId: string): Promise<boolean>;
  close(): Promise<void>;
}

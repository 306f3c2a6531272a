import type { Clock, Scheduler } from "@llm-scheduler/core";
import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { MemoryBatchStore } from "./memory-store.js";
import { retryOf } from "./retry-policy.js";
import type { BatchStore, ClaimOrder } from "./store.js";
import type { Execute, RetryPolicy } from "./types.js";

/**
 * Options of the batch layer itself (`new Batches(options)`); {@link createBatches} also takes the HTTP
 * layer's (`BatchesHttpOptions`).
 */
export interface BatchesCoreOptions {
  /** Every item runs through this scheduler's `run()`. */
  readonly scheduler: Scheduler;
  /** Runs one item upstream: `openaiExecutor({ baseURL, apiKey })` or your own function. */
  readonly execute: Execute;
  /**
   * Where batches, items, results and files live.
   * @default new MemoryBatchStore()
   */
  readonly store?: BatchStore;
  /**
   * Items this instance runs at once (handed to `scheduler.run()`; the scheduler decides when each
   * goes upstream). Keep it at or above the scheduler's `maxConcurrency`. `0` makes an instance that
   * only creates, reads and cancels batches (an API front end) and runs none.
   * @default 64
   */
  readonly maxInFlight?: number;
  /**
   * Run timeout of one attempt (`RUN_TIMEOUT`, then retried).
   * @default 600_000
   */
  readonly itemTimeoutMs?: number;
  /**
   * How long a claimed item stays this instance's without a heartbeat; after it another instance may
   * take it. Heartbeats extend it every third of it.
   * @default 30_000
   */
  readonly visibilityMs?: number;
  /**
   * How often the instance looks for new items, delayed retries and windows that ended, when nothing
   * woke it sooner.
   * @default 1_000
   */
  readonly pollMs?: number;
  /** This instance's name in claims. @default a random id */
  readonly instanceId?: string;
  /** Time source. @default the scheduler's clock */
  readonly clock?: Clock;
  /** Source of the retry jitter, a number in [0, 1). @default Math.random */
  readonly random?: () => number;
  /** Called with errors handled in the background (a store call that failed, a listener that threw). */
  readonly onError?: (error: unknown) => void;
  /**
   * The retry policy of batches that set none (every batch created over HTTP).
   * @default { maxAttempts: 4, baseMs: 1_000, maxMs: 60_000 }
   */
  readonly retry?: Partial<RetryPolicy>;
  /**
   * How long an uploaded input file is kept, in ms, unless its upload asks for less with OpenAI's
   * `expires_after` (`{ anchor: "created_at", seconds }`, 3,600 to 2,592,000 s); a longer request is
   * cut to this. An expired file is deleted; a batch created from it before keeps its items.
   * @default 2_592_000_000 (30 days, OpenAI's default for batch files)
   */
  readonly fileTtlMs?: number;
  /**
   * Most input files one tenant keeps at once; one more upload is refused with 429
   * `files_quota_exceeded` until a file is deleted or expires.
   * @default 1_000
   */
  readonly maxFilesPerTenant?: number;
  /**
   * Most bytes of input files one tenant keeps at once (checked as the upload is stored: the upload that
   * would pass it is refused with 429 `files_quota_exceeded` and nothing of it is kept).
   * @default 1_073_741_824 (1 GiB)
   */
  readonly maxFileBytesPerTenant?: number;
  /**
   * Which batch's items this instance claims first: `"deadline"`, the batch whose completion window
   * ends first (earliest deadline first); `"created"`, the oldest batch (FIFO across batches). Batches
   * tied within `orderTieMs` share by tenant turns. Items then run through `scheduler.run()` at their
   * batch's priority, so this orders batch work within a priority, never ahead of interactive traffic.
   * @default "deadline"
   */
  readonly batchOrder?: "deadline" | "created";
  /**
   * Deadlines (or creation times, with `batchOrder: "created"`) this close count as tied: those batches
   * share by tenant turns, then each tenant's batches by turns. A year makes every batch tied (turns only).
   * @default 60_000
   */
  readonly orderTieMs?: number;
}

/** The options after defaults and validation. */
export interface ResolvedBatchesOptions {
  readonly scheduler: Scheduler;
  readonly execute: Execute;
  readonly store: BatchStore;
  readonly maxInFlight: number;
  readonly itemTimeoutMs: number;
  readonly visibilityMs: number;
  readonly pollMs: number;
  readonly instanceId: string;
  readonly clock: Clock;
  readonly random: () => number;
  readonly onError: (error: unknown) => void;
  readonly retry: RetryPolicy;
  readonly fileTtlMs: number;
  readonly maxFilesPerTenant: number;
  readonly maxFileBytesPerTenant: number;
  readonly order: ClaimOrder;
}

const KNOWN = [
  "scheduler",
  "execute",
  "store",
  "maxInFlight",
  "itemTimeoutMs",
  "visibilityMs",
  "pollMs",
  "instanceId",
  "clock",
  "random",
  "onError",
  "retry",
  "fileTtlMs",
  "maxFilesPerTenant",
  "maxFileBytesPerTenant",
  "batchOrder",
  "orderTieMs",
];

function functionOr<T>(field: string, value: unknown, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== "function") throw invalidOption(field, "a function", value);
  return value as T;
}

/** `onError` as called in the background: one that throws is ignored rather than crash the process. */
function safe(onError: (error: unknown) => void): (error: unknown) => void {
  return (error) => {
    try {
      onError(error);
    } catch {}
  };
}

/**
 * Validates every option up front (`INVALID_OPTION` naming the field) and fills in the defaults.
 *
 * @example
 * resolveBatchesOptions({ scheduler, execute, maxInFlight: -1 }); // throws: Expected `maxInFlight` to be an integer from 0 to 10000, got `-1` (number)
 */
export function resolveBatchesOptions(options: BatchesCoreOptions): ResolvedBatchesOptions {
  if (options === null || typeof options !== "object") throw invalidOption("options", "an object", options);
  rejectUnknownKeys("", options, KNOWN);
  const scheduler = options.scheduler as Partial<Scheduler> | undefined;
  if (scheduler === undefined || typeof scheduler.run !== "function") {
    throw invalidOption("scheduler", "a scheduler from createScheduler()", scheduler);
  }
  if (typeof options.execute !== "function") throw invalidOption("execute", "a function", options.execute);
  const store = options.store ?? new MemoryBatchStore();
  if (typeof store !== "object" || store === null || typeof store.claim !== "function") {
    throw invalidOption("store", "a BatchStore", store);
  }
  const instanceId = options.instanceId ?? crypto.randomUUID().slice(0, 12);
  if (typeof instanceId !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(instanceId)) {
    throw invalidOption("instanceId", "1 to 64 letters, digits, `-` or `_`", instanceId);
  }
  const clock = options.clock ?? options.scheduler.options.clock;
  if (typeof clock?.now !== "function" || typeof clock.setTimer !== "function") {
    throw invalidOption("clock", "a Clock (now, setTimer, clearTimer)", clock);
  }
  const visibilityMs = integerIn("visibilityMs", options.visibilityMs, 300, 86_400_000, 30_000);
  return {
    scheduler: options.scheduler,
    execute: options.execute,
    store,
    maxInFlight: integerIn("maxInFlight", options.maxInFlight, 0, 10_000, 64),
    itemTimeoutMs: integerIn("itemTimeoutMs", options.itemTimeoutMs, 1, 86_400_000, 600_000),
    visibilityMs,
    pollMs: integerIn("pollMs", options.pollMs, 5, 600_000, 1_000),
    instanceId,
    clock,
    random: functionOr("random", options.random, Math.random),
    onError: safe(functionOr<(error: unknown) => void>("onError", options.onError, () => {})),
    retry: retryOf(options.retry),
    fileTtlMs: integerIn("fileTtlMs", options.fileTtlMs, 1_000, 31_536_000_000, 2_592_000_000),
    maxFilesPerTenant: integerIn("maxFilesPerTenant", options.maxFilesPerTenant, 1, 1_000_000, 1_000),
    maxFileBytesPerTenant: integerIn(
      "maxFileBytesPerTenant",
      options.maxFileBytesPerTenant,
      1,
      2 ** 50,
      1_073_741_824,
    ),
    order: orderOf(options.batchOrder, options.orderTieMs),
  };
}

function orderOf(key: unknown, tieMs: unknown): ClaimOrder {
  if (key !== undefined && key !== "deadline" && key !== "created") {
    throw invalidOption("batchOrder", '"deadline" or "created"', key);
  }
  return { key: key ?? "deadline", tieMs: integerIn("orderTieMs", tieMs, 0, 31_536_000_000, 60_000) };
}

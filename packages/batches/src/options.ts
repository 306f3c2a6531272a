import type { Clock, Scheduler } from "@llm-scheduler/core";
import {
  custom,
  func,
  guarded,
  type InferShape,
  instanceIdNode,
  integer,
  methods,
  oneOf,
  required,
  resolveShape,
} from "@llm-scheduler/core/kit";
import { MemoryBatchStore } from "./memory-store.js";
import { retryOf } from "./retry-policy.js";
import type { BatchStore } from "./store.js";
import type { Execute, RetryPolicy } from "./types.js";

/** Options of the batch layer itself (`new Batches(options)`), declared once: checks, types and the README table. */
export const BATCHES = {
  scheduler: required(
    methods<Scheduler>(["run"], {
      range: "a scheduler from createScheduler()",
      shownRange: "a `createScheduler()` instance",
      doc: "every item runs through this scheduler's `run()`",
    }),
  ),
  execute: required(
    func<Execute>({
      doc: "runs one item upstream: `openaiExecutor({ baseURL, apiKey })` or your own function",
    }),
  ),
  store: methods<BatchStore>(["claim"], {
    range: "a BatchStore",
    shownRange: "a `BatchStore`",
    shownDefault: "a new `MemoryBatchStore`",
    doc: "where batches, items, results and files live; `redisBatchStore()` from `@llm-scheduler/redis` shares them",
  }),
  maxInFlight: integer(0, 10_000, {
    default: 64,
    doc: "items this instance hands to `scheduler.run()` at once; `0`: an API-only instance that runs none",
  }),
  itemTimeoutMs: integer(1, 86_400_000, {
    default: 600_000,
    doc: "run timeout of one attempt (`RUN_TIMEOUT`, then retried)",
  }),
  visibilityMs: integer(300, 86_400_000, {
    default: 30_000,
    doc: "how long a claimed item stays this instance's without a heartbeat; heartbeats extend it every third of it",
  }),
  pollMs: integer(5, 600_000, {
    default: 1_000,
    doc: "how often an idle instance looks for new items, due retries and windows that ended",
  }),
  instanceId: instanceIdNode({
    shownDefault: "a random id",
    doc: "this instance's name in claims",
  }),
  clock: methods<Clock>(["now", "setTimer"], {
    range: "a Clock (now, setTimer, clearTimer)",
    shownRange: "a `Clock`",
    shownDefault: "the scheduler's clock",
    doc: "time source (a `VirtualClock` in tests)",
  }),
  random: func<() => number>({
    shownDefault: "`Math.random`",
    doc: "source of the retry jitter, a number in [0, 1)",
  }),
  onError: func<(error: unknown) => void>({
    doc: "told of errors handled in the background (a store call that failed, a listener that threw)",
  }),
  retry: custom<Partial<RetryPolicy>>({
    check: (_path, value) => retryOf(value),
    range: "`{ maxAttempts, baseMs, maxMs }`",
    json: { type: "object" },
    shownDefault: "`{ maxAttempts: 4, baseMs: 1000, maxMs: 60000 }`",
    doc: "the retry policy of batches that set none (every batch created over HTTP)",
  }),
  fileTtlMs: integer(1_000, 31_536_000_000, {
    default: 2_592_000_000,
    shownDefault: "30 days",
    doc: "how long an input file is kept; an upload may ask less with `expires_after` (see Input files)",
  }),
  maxFilesPerTenant: integer(1, 1_000_000, {
    default: 1_000,
    doc: "input files one tenant keeps at once; one more is refused with 429 `files_quota_exceeded`",
  }),
  maxFileBytesPerTenant: integer(1, 2 ** 50, {
    default: 1_073_741_824,
    shownDefault: "1 GiB",
    doc: "bytes of input files one tenant keeps at once; the upload that would pass it is refused with 429",
  }),
  batchOrder: oneOf(["deadline", "created"], {
    default: "deadline",
    doc: 'which batch\'s items this instance claims first: `"deadline"`, the batch whose completion window ends first (earliest deadline first); `"created"`, the oldest batch (FIFO across batches); items then run at their batch\'s priority, never ahead of interactive traffic',
  }),
  orderTieMs: integer(0, 31_536_000_000, {
    default: 60_000,
    doc: "deadlines (or creation times) this close count as tied: those batches share by tenant turns; a year makes every batch tied",
  }),
};

/**
 * Options of the batch layer itself (`new Batches(options)`); {@link createBatches} also takes the HTTP
 * layer's (`BatchesHttpOptions`).
 */
export type BatchesCoreOptions = InferShape<typeof BATCHES>;

/** The options after defaults and validation. */
export type ResolvedBatchesOptions = ReturnType<typeof resolveBatchesOptions>;

/**
 * Validates every option up front (`INVALID_OPTION` naming the field) and fills in the defaults.
 *
 * @example
 * resolveBatchesOptions({ scheduler, execute, maxInFlight: -1 }); // throws: Expected `maxInFlight` to be an integer from 0 to 10000, got `-1` (number)
 */
export function resolveBatchesOptions(options: BatchesCoreOptions) {
  const resolved = resolveShape(BATCHES, options);
  return {
    ...resolved,
    store: resolved.store ?? new MemoryBatchStore(),
    instanceId: resolved.instanceId ?? crypto.randomUUID().slice(0, 12),
    clock: resolved.clock ?? resolved.scheduler.options.clock,
    random: resolved.random ?? Math.random,
    // what it throws is ignored rather than crash the process
    onError: guarded(resolved.onError),
    retry: retryOf(resolved.retry),
    order: { key: resolved.batchOrder, tieMs: resolved.orderTieMs },
  };
}

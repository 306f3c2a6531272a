import type { Clock } from "../clock.js";
import { PRIORITY_WEIGHT, type SchedulerOptions } from "../options.js";
import {
  bound,
  definedOnly,
  duration,
  integerIn,
  MAX_CONCURRENCY,
  plainObject,
  positiveNumber,
  rejectUnknownKeys,
} from "../validate.js";

/** Options of `LlmScheduler`: the write-up's five, plus the queue bound, a run timeout and fairness knobs. */
export interface LlmSchedulerOptions {
  /** Requests in flight upstream at once, from 1 to 1,000,000. */
  readonly maxConcurrency: number;
  /**
   * Share of starts of interactive work while both lanes wait (with 5 and 1: five interactive starts for
   * each batch start). A number in (0, 1,000,000].
   * @default 5
   */
  readonly interactiveWeight?: number;
  /**
   * Share of starts of batch work while both lanes wait. A number in (0, 1,000,000].
   * @default 1
   */
  readonly batchWeight?: number;
  /**
   * An interactive task that waits longer than this is rejected (`QUEUE_TIMEOUT`). Positive ms or `Infinity`.
   * @default 5_000
   */
  readonly interactiveQueueTimeoutMs?: number;
  /**
   * A batch task that waits longer than this is rejected (`QUEUE_TIMEOUT`). Positive ms or `Infinity`.
   * @default 300_000
   */
  readonly batchQueueTimeoutMs?: number;
  /**
   * At most this many tasks wait in both queues together; the next `submit()` rejects with a
   * `QUEUE_FULL` error whose message is "queue is full". A positive integer or `Infinity`.
   * @default Infinity
   */
  readonly maxQueueSize?: number;
  /**
   * A task that runs longer than this has its signal aborted and its caller gets `RUN_TIMEOUT`; its slot
   * is held until the function settles (at most 5 s more). Positive ms or `Infinity`.
   * @default Infinity
   */
  readonly runTimeoutMs?: number;
  /**
   * Slots kept for interactive tasks, so that one arriving behind a full batch backlog starts at once.
   * An integer from 0 to `maxConcurrency`.
   * @default 1 (0 when maxConcurrency is 1)
   */
  readonly interactiveReserved?: number;
  /**
   * A batch task that has waited this long goes next, so batch work keeps moving under interactive load.
   * Positive ms or `Infinity` (no aging).
   * @default half of batchQueueTimeoutMs
   */
  readonly batchMaxWaitMs?: number;
  /**
   * Time source and timers; pass a `VirtualClock` in tests and simulations.
   * @default systemClock
   */
  readonly clock?: Clock;
}

const KNOWN = [
  "maxConcurrency",
  "interactiveWeight",
  "batchWeight",
  "interactiveQueueTimeoutMs",
  "batchQueueTimeoutMs",
  "maxQueueSize",
  "runTimeoutMs",
  "interactiveReserved",
  "batchMaxWaitMs",
  "clock",
] as const;

/** What `LlmScheduler` works from once its options are validated. */
export interface ResolvedLlmOptions {
  /** The core scheduler's options. */
  readonly core: SchedulerOptions;
  readonly maxQueueSize: number;
  /** `undefined` for no run timeout. */
  readonly runTimeoutMs: number | undefined;
}

/**
 * Validates `LlmScheduler`'s options (unknown keys, types and ranges, each message naming the field as
 * the caller spelled it) and maps them onto the core scheduler's two lanes.
 */
export function resolveLlmOptions(options: LlmSchedulerOptions): ResolvedLlmOptions {
  rejectUnknownKeys("", plainObject("options", options), KNOWN);
  const given = definedOnly(options);
  const maxConcurrency = integerIn("maxConcurrency", given.maxConcurrency, 1, MAX_CONCURRENCY);
  const batchQueueTimeoutMs = duration("batchQueueTimeoutMs", given.batchQueueTimeoutMs ?? 300_000);
  const reserved = given.interactiveReserved ?? (maxConcurrency > 1 ? 1 : 0);
  const core: SchedulerOptions = {
    maxConcurrency,
    defaultPriority: "interactive",
    priorities: {
      interactive: {
        weight: positiveNumber("interactiveWeight", given.interactiveWeight ?? 5, PRIORITY_WEIGHT.max),
        reserved: integerIn("interactiveReserved", reserved, 0, maxConcurrency),
        queueTimeoutMs: duration("interactiveQueueTimeoutMs", given.interactiveQueueTimeoutMs ?? 5_000),
        maxQueue: Number.POSITIVE_INFINITY,
      },
      batch: {
        weight: positiveNumber("batchWeight", given.batchWeight ?? 1, PRIORITY_WEIGHT.max),
        queueTimeoutMs: batchQueueTimeoutMs,
        maxQueue: Number.POSITIVE_INFINITY,
        maxWaitMs: duration("batchMaxWaitMs", given.batchMaxWaitMs ?? batchQueueTimeoutMs / 2),
      },
    },
    ...(given.clock === undefined ? {} : { clock: given.clock }),
  };
  const runTimeoutMs = duration("runTimeoutMs", given.runTimeoutMs ?? Number.POSITIVE_INFINITY);
  return {
    core,
    maxQueueSize: bound("maxQueueSize", given.maxQueueSize ?? Number.POSITIVE_INFINITY),
    runTimeoutMs: runTimeoutMs === Number.POSITIVE_INFINITY ? undefined : runTimeoutMs,
  };
}

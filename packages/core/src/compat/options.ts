import { PRIORITY_WEIGHT, SCHEDULER, type SchedulerOptions } from "../options.js";
import { duration, type InferShape, integer, positive, required, resolveShape } from "../schema/schema.js";
import { integerIn, MAX_CONCURRENCY, MAX_QUEUE } from "../validate.js";

/** Options of `LlmScheduler`: the write-up's five, plus the queue bound, a run timeout and fairness knobs. */
const LLM = {
  maxConcurrency: required(integer(1, MAX_CONCURRENCY, { doc: "requests in flight upstream at once" })),
  interactiveWeight: positive(PRIORITY_WEIGHT.max, {
    default: 5,
    doc: "share of interactive starts while both lanes wait (5 and 1: five interactive starts per batch start)",
  }),
  batchWeight: positive(PRIORITY_WEIGHT.max, {
    default: 1,
    doc: "share of batch starts while both lanes wait",
  }),
  interactiveQueueTimeoutMs: duration({
    default: 5_000,
    doc: "an interactive task waiting longer gets `QUEUE_TIMEOUT`",
  }),
  batchQueueTimeoutMs: duration({
    default: 300_000,
    doc: "a batch task waiting longer gets `QUEUE_TIMEOUT`",
  }),
  maxQueueSize: integer(1, MAX_QUEUE, {
    infinite: true,
    default: Number.POSITIVE_INFINITY,
    doc: 'at most this many wait in both lanes together; the next `submit()` gets `QUEUE_FULL` ("queue is full")',
  }),
  runTimeoutMs: duration({
    default: Number.POSITIVE_INFINITY,
    doc: "a task running longer has its signal aborted and its caller gets `RUN_TIMEOUT` (its slot is held until it settles, at most 5 s more)",
  }),
  interactiveReserved: integer(0, MAX_CONCURRENCY, {
    shownDefault: "1 (0 when `maxConcurrency` is 1)",
    doc: "slots kept for interactive tasks, at most `maxConcurrency`: one behind a full batch backlog starts at once",
  }),
  batchMaxWaitMs: duration({
    shownDefault: "half of `batchQueueTimeoutMs`",
    doc: "a batch task that waited this long goes next, so batch work moves under interactive load",
  }),
  clock: SCHEDULER.clock,
};

/** Options of `LlmScheduler`: `maxConcurrency` is required, every other field optional. */
export type LlmSchedulerOptions = InferShape<typeof LLM>;

/**
 * Validates `LlmScheduler`'s options (unknown keys, types and ranges, each message naming the field as
 * the caller spelled it) and maps them onto the core scheduler's two lanes (`core`); `runTimeoutMs` is
 * `undefined` for no run timeout.
 */
export function resolveLlmOptions(options: LlmSchedulerOptions) {
  const given = resolveShape(LLM, options);
  const { maxConcurrency, batchQueueTimeoutMs, runTimeoutMs, clock } = given;
  const reserved = given.interactiveReserved ?? (maxConcurrency > 1 ? 1 : 0);
  integerIn("interactiveReserved", reserved, 0, maxConcurrency); // at most the limit it shares
  const core: SchedulerOptions = {
    maxConcurrency,
    defaultPriority: "interactive",
    priorities: {
      interactive: {
        weight: given.interactiveWeight,
        reserved,
        queueTimeoutMs: given.interactiveQueueTimeoutMs,
        maxQueue: Number.POSITIVE_INFINITY,
      },
      batch: {
        weight: given.batchWeight,
        queueTimeoutMs: batchQueueTimeoutMs,
        maxQueue: Number.POSITIVE_INFINITY,
        maxWaitMs: given.batchMaxWaitMs ?? batchQueueTimeoutMs / 2,
      },
    },
    ...(clock === undefined ? {} : { clock }),
  };
  const finite = runTimeoutMs === Number.POSITIVE_INFINITY ? undefined : runTimeoutMs;
  return { core, maxQueueSize: given.maxQueueSize, runTimeoutMs: finite };
}

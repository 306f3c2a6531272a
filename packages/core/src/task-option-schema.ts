import { MAX_TOKENS } from "./options.js";
import { boolean, custom, duration, type InferShape, integer, string } from "./schema/schema.js";
import { MAX_CONCURRENCY } from "./validate.js";

/** Per-call options of `run()`, `acquire()` and `tryAcquire()` (checked per call in admission.ts). */
export const TASK = {
  priority: string(Number.POSITIVE_INFINITY, {
    shownRange: "a configured name",
    shownDefault: "`defaultPriority`",
    doc: "the task's priority",
  }),
  tenant: string(Number.POSITIVE_INFINITY, {
    shownDefault: "`defaultTenant`",
    doc: "who the task belongs to (API key, team); one over 128 characters is hashed",
  }),
  id: custom<string>({
    check: (_path, value) => value as string,
    range: "a string of any length",
    json: { type: "string" },
    shownDefault: "a sequence number",
    doc: "your id for the task: shows in events and errors, and marks retries",
  }),
  signal: custom<AbortSignal>({
    check: (_path, value) => value as AbortSignal,
    range: "an `AbortSignal`",
    json: undefined,
    shownDefault: "none",
    doc: "aborting it removes a queued task (`ABORTED`) or aborts a running task's signal",
  }),
  timeoutMs: duration({
    default: Number.POSITIVE_INFINITY,
    doc: "run timeout: the task's signal fires and the caller gets `RUN_TIMEOUT`",
  }),
  cost: integer(1, MAX_CONCURRENCY, {
    default: 1,
    shownRange: "an integer from 1 to the priority's `maxConcurrency`",
    doc: "units of `maxConcurrency` the task takes",
  }),
  tokens: integer(0, MAX_TOKENS, {
    default: 0,
    doc: "estimated prompt plus output tokens, charged at start",
  }),
  retry: boolean({
    default: false,
    doc: "your code says this is a retry (trusted): it goes to the front of its tenant's queue",
  }),
  claimedRetry: boolean({
    default: false,
    doc: "a client's unchecked retry claim: the front only after a recent refusal of its id or tenant",
  }),
};

/** Per-call options of `run()` and `acquire()`. */
export type TaskOptions = InferShape<typeof TASK>;

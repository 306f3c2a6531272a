/**
 * `@llm-scheduler/core/kit`: helpers for authors of adapters and stores, kept out of the main entry so
 * that it stays the documented API for users.
 *
 * - adapters: the header names every adapter reads and the functions that turn them into per-call
 *   options (`lowerOnlyPriority`, `isRetryRequest`, `givenRequestId`, `requestIdOf`, `serverTiming`),
 *   and `KnownTaskOptions`, the per-request options shape whose keys admission need not check;
 * - stores: the `Store` seam, the in-memory default (`MemoryStore`) and the heap the core orders its
 *   deadlines with;
 * - exporters (metrics, traces): `failedOutcome`, one label for how a started task ended;
 * - both: `guarded`, a user callback that cannot throw into a background loop; the one validation message shape (`invalidOption`, `integerIn`, `rejectUnknownKeys`, `nearest`);
 * - tools that read options from files: `PRIORITY_KEYS`, the keys a priority's options may have; the
 *   options' schema (`SCHEDULER_SCHEMA`, `PRIORITY_SCHEMA`, `TENANT_SCHEMA`, `TASK_SCHEMA`) and the
 *   combinators it is built with, to declare a file's own sections the same way (paths in messages,
 *   unknown keys refused with a did-you-mean, JSON Schema, defaults); `resolveShape` checks a package's
 *   options against its shape and fills in the defaults, and `withOptionTables` writes its README tables.
 */
export { guarded } from "./guarded.js";
export { type HeapItem, IndexedHeap } from "./heap.js";
export { type KnownTaskFields, KnownTaskOptions } from "./known-options.js";
export { MemoryStore } from "./memory/memory-store.js";
export {
  LIVE_KEYS as SCHEDULER_LIVE_KEYS,
  PRIORITY as PRIORITY_SCHEMA,
  PRIORITY_KEYS,
  SCHEDULER as SCHEDULER_SCHEMA,
  TENANT as TENANT_SCHEMA,
} from "./options.js";
export { failedOutcome } from "./outcome.js";
export {
  givenRequestId,
  HeaderNames,
  type HeaderReader,
  isRetryRequest,
  lowerOnlyPriority,
  requestIdOf,
  serverTiming,
} from "./request.js";
export { type OptionTable, optionTable, withOptionTables } from "./schema/markdown.js";
export {
  boolean,
  custom,
  type Defaulted,
  duration,
  fraction,
  func,
  type Infer,
  type InferShape,
  instanceIdNode,
  integer,
  list,
  type Meta,
  matching,
  methods,
  type Node,
  number,
  object,
  oneOf,
  positive,
  type Resolved,
  record,
  required,
  resolveShape,
  type Shape,
  string,
  text,
  withDefaults,
} from "./schema/schema.js";
export type {
  EnqueueResult,
  LimitProposal,
  LimitState,
  MaybePromise,
  ResolvedTenant,
  Store,
  StoreConfig,
  StoreHost,
  StoreSnapshot,
  Ticket,
  TokenUsage,
} from "./store.js";
export { TASK as TASK_SCHEMA } from "./task-option-schema.js";
export { integerIn, invalidOption, nearest, rejectUnknownKeys } from "./validate.js";

export { Batches } from "./batches.js";
export { type BatchProgress, type BatchTask, getBatchProgress, submitBatch } from "./compat.js";
export type { BatchStatusCounts } from "./counts.js";
export { type BatchesOptions, createBatches, type ServedBatches } from "./create.js";
export {
  BATCH_ENDPOINTS,
  CREATE as CREATE_SCHEMA,
  type CreateBatchOptions,
  MAX_ITEMS,
  type ResolvedCreate,
  resolveCreate,
} from "./create-options.js";
export { BatchError, BatchErrorCode, batchErrorHttp, fileStorageFull, filesQuotaExceeded } from "./errors.js";
export { estimatedCompletionAt, estimateInputs, withEstimate } from "./estimate.js";
export type { BatchEvents } from "./events.js";
export { type OpenAIExecutorOptions, openaiExecutor } from "./executor.js";
export { type BatchesHandler, batchesHandler } from "./http/handler.js";
export { bearerKeyTenant } from "./http/identity.js";
export {
  BATCHES_HTTP as BATCHES_HTTP_SCHEMA,
  type BatchesHttpOptions,
  type PriorityOf,
  type ResolvedHttpOptions,
  resolveHttpOptions,
  type TenantOf,
} from "./http/options.js";
export { newId } from "./ids.js";
export { MemoryBatchStore, type MemoryBatchStoreOptions } from "./memory-store.js";
export { type NodeRequestLike, type NodeResponseLike, nodeListener } from "./node.js";
export {
  BATCHES as BATCHES_SCHEMA,
  type BatchesCoreOptions,
  type ResolvedBatchesOptions,
  resolveBatchesOptions,
} from "./options.js";
export { backoffMs, isRetryableStatus, retryAfterMs } from "./retry.js";
export {
  type BatchStore,
  type BatchSummary,
  type Claim,
  type ClaimOrder,
  type ClaimReply,
  DEFAULT_CLAIM_ORDER,
  type FileQuota,
  type FileRecord,
  type Outcome,
  type SettleReply,
} from "./store.js";
export { CANCELLED, EXPIRED } from "./transitions.js";
export {
  type Attempt,
  type Batch,
  type BatchItem,
  type BatchItemInput,
  type BatchStatus,
  type BatchView,
  type Execute,
  type ExecuteContext,
  type ExecuteResult,
  FINAL_STATUSES,
  type ItemError,
  type ItemResult,
  type ListOptions,
  type RequestCounts,
  type RetryPolicy,
} from "./types.js";

/**
 * Every Redis key of the batch store, with its type. All start with `<prefix>b:`; the scripts build them
 * from the prefix (ARGV[1]) exactly as below, so in Redis Cluster the prefix must carry a hash tag
 * (`"{llm}:"`) to keep them in one slot.
 *
 * Per batch `<id>`:
 * - `t:<id>` HASH: `doc` (JSON of the fields that never change: id, tenant, priority, endpoint, file
 *   ids, completionWindowMs, retry, metadata, createdAt), `status`, `total`, `completed`, `failed`,
 *   `expiresAt`, `windowMs`, `errors` (JSON), and the timestamps `inProgressAt`, `finalizingAt`,
 *   `completedAt`, `failedAt`, `expiredAt`, `cancellingAt`, `cancelledAt` (absent while unset),
 *   `runningAt` and `runningDone` (the round's first claim and the items final then; absent before it).
 * - `i:<id>` HASH: index -> item JSON (`{ index, customId, method, url, body }`).
 * - `c:<id>` HASH: index -> customId (so that a cancel or an expiry of 50,000 items decodes no body).
 * - `rd:<id>` ZSET: index -> due time (ms): the items waiting to be claimed.
 * - `m:<id>` HASH: index -> attempts made in this round (absent = 0).
 * - `a:<id>` HASH: index -> the item's earlier attempts, JSON objects joined by commas.
 * - `r:<id>` HASH: index -> final result JSON (`{ customId, response, error, last }`, `last` being the
 *   final attempt).
 * - `f:<id>` SET: indexes of the items that ended without success (what `retryFailed` runs again).
 * A finished batch's keys expire after `resultTtlMs`; `retryFailed` keeps them again.
 *
 * Shared:
 * - `open` ZSET: batch id -> end of its completion window (ms; claims take batches in this order), for batches validating or in progress
 *   (a validating one has nothing to claim; a sweep expires it if its creator stopped before starting it).
 * - `run` ZSET: `<id>|<index>|<token>` -> visibility deadline (ms): the claims. The token is the
 *   fence: a claim taken again, revoked or settled is no longer a member, so a stale write finds none.
 * - `fence` STRING: the last fencing token handed out (INCRBY).
 * - `turn` STRING: rotates the tenant (and within it the batch) a claim starts with (INCR).
 * - `all` ZSET and `tenant:<tenant>` ZSET: batch id -> creation time, for listing newest first.
 * - `file:<id>` HASH: `meta` (the file record as JSON, as created), `bytes`, `lines`, `expiresAt`;
 *   `lines:<id>` LIST: the file's lines. Both expire with the file.
 * - `fx` ZSET: file id -> expiry (ms), every kept file (a sweep or an upload deletes the expired ones);
 *   `fo` HASH: file id -> tenant; `fb` HASH: file id -> bytes reserved;
 *   `fu:<tenant>` HASH: `files` and `bytes` the tenant keeps (checked against its quota by the scripts).
 */
export interface BatchKeys {
  readonly batch: (id: string) => string;
  readonly items: (id: string) => string;
  readonly customIds: (id: string) => string;
  readonly attempts: (id: string) => string;
  readonly results: (id: string) => string;
  readonly all: string;
  readonly open: string;
  readonly tenant: (tenant: string) => string;
  readonly file: (id: string) => string;
  readonly lines: (id: string) => string;
}

/**
 * The keys under a prefix that the TypeScript side reads or writes directly.
 *
 * @example
 * batchKeys("llm:").batch("batch_abc"); // "llm:b:t:batch_abc"
 */
export function batchKeys(prefix: string): BatchKeys {
  const p = `${prefix}b:`;
  return {
    batch: (id) => `${p}t:${id}`,
    items: (id) => `${p}i:${id}`,
    customIds: (id) => `${p}c:${id}`,
    attempts: (id) => `${p}a:${id}`,
    results: (id) => `${p}r:${id}`,
    all: `${p}all`,
    open: `${p}open`,
    tenant: (tenant) => `${p}tenant:${tenant}`,
    file: (id) => `${p}file:${id}`,
    lines: (id) => `${p}lines:${id}`,
  };
}

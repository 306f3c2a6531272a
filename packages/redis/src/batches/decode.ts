import type { Batch, BatchStatus, ItemError } from "@llm-scheduler/batches";

/** The fields of a batch that never change, kept as one JSON `doc` in its hash. */
export type BatchDoc = Pick<
  Batch,
  | "id"
  | "tenant"
  | "priority"
  | "endpoint"
  | "inputFileId"
  | "outputFileId"
  | "errorFileId"
  | "completionWindowMs"
  | "retry"
  | "metadata"
  | "createdAt"
>;

/**
 * The doc of a batch, as stored in its hash.
 *
 * @example
 * await redis.hset(key, "doc", JSON.stringify(docOf(batch)));
 */
export function docOf(batch: Batch): BatchDoc {
  const { id, tenant, priority, endpoint, inputFileId, outputFileId, errorFileId } = batch;
  const { completionWindowMs, retry, metadata, createdAt } = batch;
  return {
    id,
    tenant,
    priority,
    endpoint,
    inputFileId,
    outputFileId,
    errorFileId,
    completionWindowMs,
    retry,
    metadata,
    createdAt,
  };
}

/**
 * A flat `HGETALL` reply (`[field, value, ...]`) or an ioredis object reply as a map.
 *
 * @example
 * fieldsOf(["status", "completed"]); // { status: "completed" }
 */
export function fieldsOf(reply: unknown): Record<string, string> {
  if (Array.isArray(reply)) {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < reply.length; i += 2) fields[String(reply[i])] = String(reply[i + 1]);
    return fields;
  }
  return (reply ?? {}) as Record<string, string>;
}

const stamp = (value: string | undefined): number | null => (value === undefined ? null : Number(value));

/**
 * A batch from its hash fields, or `undefined` when the hash is empty (no such batch, or expired).
 *
 * @example
 * const batch = batchOf(await redis.hgetall(keys.batch(id)));
 */
export function batchOf(fields: Record<string, string>): Batch | undefined {
  if (fields.doc === undefined) return undefined;
  const doc = JSON.parse(fields.doc) as BatchDoc;
  return {
    ...doc,
    status: fields.status as BatchStatus,
    requestCounts: {
      total: Number(fields.total),
      completed: Number(fields.completed),
      failed: Number(fields.failed),
    },
    errors: fields.errors === undefined ? null : (JSON.parse(fields.errors) as ItemError[]),
    expiresAt: Number(fields.expiresAt),
    inProgressAt: stamp(fields.inProgressAt),
    finalizingAt: stamp(fields.finalizingAt),
    completedAt: stamp(fields.completedAt),
    failedAt: stamp(fields.failedAt),
    expiredAt: stamp(fields.expiredAt),
    cancellingAt: stamp(fields.cancellingAt),
    cancelledAt: stamp(fields.cancelledAt),
    runningSince:
      fields.runningAt === undefined
        ? null
        : { at: Number(fields.runningAt), done: Number(fields.runningDone ?? 0) },
  };
}

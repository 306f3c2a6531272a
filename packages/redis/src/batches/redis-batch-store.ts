import {
  type Attempt,
  type Batch,
  type BatchItem,
  type BatchStatus,
  type BatchStore,
  CANCELLED,
  type Claim,
  type ClaimOrder,
  type ClaimReply,
  DEFAULT_CLAIM_ORDER,
  EXPIRED,
  type FileQuota,
  type FileRecord,
  type ItemError,
  type ItemResult,
  type ListOptions,
  type Outcome,
  type SettleReply,
} from "@llm-scheduler/batches";
import { Redis } from "ioredis";
import { whenReady } from "../connection.js";
import { type BatchDoc, batchOf, docOf, fieldsOf } from "./decode.js";
import { type BatchKeys, batchKeys } from "./keys.js";
import type { BatchRedisClient } from "./options.js";
import {
  type RedisBatchStoreOptions,
  type ResolvedBatchStoreOptions,
  resolveBatchStoreOptions,
} from "./options.js";
import { RedisFiles } from "./redis-files.js";
import { BatchScripts } from "./scripts.js";

/** A final result as stored: the last attempt beside it, the earlier ones in the attempts hash. */
type StoredResult = Pick<ItemResult, "customId" | "response" | "error"> & { readonly last?: Attempt };

/**
 * A {@link BatchStore} in Redis: batches, items, attempts, results and input files survive restarts
 * and are shared by every instance using the same prefix. Each step that changes an item is one Lua
 * script (claim with a fencing token and a visibility deadline, extend, settle, cancel, sweep, retry),
 * so any instance may run any item, a crashed instance's items are claimed again once their deadline
 * passes, and a late write from a stale claim is refused. Finished batches are kept for `resultTtlMs`.
 *
 * @example
 * const store = redisBatchStore({ url: "redis://127.0.0.1:6379", prefix: "llm:" });
 * const batches = createBatches({ scheduler, execute, store });
 */
export class RedisBatchStore implements BatchStore {
  readonly #config: ResolvedBatchStoreOptions;
  readonly #client: BatchRedisClient;
  readonly #owned: boolean;
  readonly #scripts: BatchScripts;
  readonly #keys: BatchKeys;
  readonly #files: RedisFiles;

  constructor(options: RedisBatchStoreOptions = {}) {
    this.#config = resolveBatchStoreOptions(options);
    this.#owned = this.#config.client === undefined;
    this.#client =
      this.#config.client ??
      new Redis(this.#config.url!, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: this.#config.commandTimeoutMs,
        connectionName: "llm-scheduler:batches",
        retryStrategy: (times) => Math.min(50 * times, 1_000),
      });
    if (this.#owned) this.#client.on("error", () => {}); // failures surface on the calls themselves
    this.#scripts = new BatchScripts(this.#client);
    this.#keys = batchKeys(this.#config.prefix);
    this.#files = new RedisFiles(
      this.#client,
      this.#scripts,
      this.#keys,
      this.#config.prefix,
      this.#config.fileTtlMs,
    );
  }

  /** The connection the store runs its commands on. */
  get client(): BatchRedisClient {
    return this.#client;
  }

  async #run(name: Parameters<BatchScripts["run"]>[0], args: readonly (string | number)[]): Promise<unknown> {
    await this.#connected();
    return this.#scripts.run(name, [this.#config.prefix, ...args]);
  }

  /** Waits for the connection (at most `commandTimeoutMs`); throws when Redis cannot be reached. */
  async #connected(): Promise<void> {
    if (this.#client.status === "ready") return;
    if (!(await whenReady(this.#client, this.#config.commandTimeoutMs))) {
      throw new Error(`Redis cannot be reached at the batch store's connection (${this.#client.status})`);
    }
  }

  async createBatch(batch: Batch): Promise<void> {
    await this.#connected();
    const key = this.#keys.batch(batch.id);
    await this.#client
      .multi()
      .hset(key, {
        doc: JSON.stringify(docOf(batch)),
        status: batch.status,
        total: 0,
        completed: 0,
        failed: 0,
        expiresAt: batch.expiresAt,
        windowMs: batch.completionWindowMs,
      })
      .zadd(this.#keys.all, batch.createdAt, batch.id)
      .zadd(this.#keys.tenant(batch.tenant), batch.createdAt, batch.id)
      // open from the start, so that a sweep expires it at the end of its window if its creator
      // stops before starting it (it has nothing to claim until then)
      .zadd(this.#keys.open, batch.expiresAt, batch.id)
      .exec();
  }

  async addItems(batchId: string, items: readonly BatchItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.#connected();
    const fields: Record<string, string> = {};
    const customIds: Record<string, string> = {};
    for (const item of items) {
      fields[item.index] = JSON.stringify(item);
      customIds[item.index] = item.customId;
    }
    await this.#client
      .multi()
      .hset(this.#keys.items(batchId), fields)
      .hset(this.#keys.customIds(batchId), customIds)
      .exec();
  }

  async startBatch(batchId: string, total: number, now: number): Promise<Batch | undefined> {
    return batchOf(fieldsOf(await this.#run("start", [now, batchId, total, this.#config.resultTtlMs])));
  }

  async failBatch(batchId: string, errors: readonly ItemError[], now: number): Promise<Batch | undefined> {
    const reply = await this.#run("fail", [now, batchId, JSON.stringify(errors), this.#config.resultTtlMs]);
    return batchOf(fieldsOf(reply));
  }

  async getBatch(batchId: string): Promise<Batch | undefined> {
    await this.#connected();
    return batchOf(await this.#client.hgetall(this.#keys.batch(batchId)));
  }

  async listBatches(options: ListOptions): Promise<Batch[]> {
    await this.#connected();
    const key = options.tenant === undefined ? this.#keys.all : this.#keys.tenant(options.tenant);
    const limit = options.limit ?? 20;
    let start = 0;
    if (options.after !== undefined) {
      const rank = await this.#client.zrevrank(key, options.after);
      if (rank === null) return [];
      start = rank + 1;
    }
    const found: Batch[] = [];
    for (let page = 100; found.length < limit; start += page) {
      const ids = await this.#client.zrevrange(key, start, start + page - 1);
      if (ids.length === 0) break;
      const pipeline = this.#client.pipeline();
      for (const id of ids) pipeline.hgetall(this.#keys.batch(id));
      const replies = (await pipeline.exec()) ?? [];
      for (const [index, [, fields]] of replies.entries()) {
        const batch = batchOf(fields as Record<string, string>);
        if (batch === undefined) void this.#client.zrem(key, ids[index]!).catch(() => {});
        else if (options.status === undefined || batch.status === options.status) found.push(batch);
        if (found.length >= limit) break;
      }
    }
    return found;
  }

  async claim(
    _owner: string,
    limit: number,
    now: number,
    visibilityMs: number,
    order: ClaimOrder = DEFAULT_CLAIM_ORDER,
  ): Promise<ClaimReply> {
    const args = [now, visibilityMs, limit, order.key, order.tieMs];
    const reply = (await this.#run("claim", args)) as Array<string | number>;
    const claims: Claim[] = [];
    for (let i = 1; i + 5 < reply.length; i += 6) {
      const doc = JSON.parse(String(reply[i + 5])) as BatchDoc;
      claims.push({
        batchId: String(reply[i]),
        tenant: doc.tenant,
        priority: doc.priority,
        retry: doc.retry,
        item: JSON.parse(String(reply[i + 4])) as BatchItem,
        token: Number(reply[i + 2]),
        attemptsMade: Number(reply[i + 3]),
      });
    }
    const next = Number(reply[0]);
    return { claims, nextDueAt: next < 0 ? undefined : next };
  }

  async extend(claims: readonly Claim[], now: number, visibilityMs: number): Promise<Claim[]> {
    const args = claims.flatMap((claim) => [claim.batchId, claim.item.index, claim.token]);
    const lost = (await this.#run("extend", [now, visibilityMs, ...args])) as string[];
    const gone = new Set<string>();
    for (let i = 0; i + 1 < lost.length; i += 2) gone.add(`${lost[i]}|${lost[i + 1]}`);
    return claims.filter((claim) => gone.has(`${claim.batchId}|${claim.item.index}`));
  }

  async settle(claim: Claim, outcome: Outcome, now: number): Promise<SettleReply | undefined> {
    const { batchId, item, token, attemptsMade } = claim;
    let kind: string = outcome.kind;
    let result = "";
    let attempt = "";
    if (outcome.kind === "final") {
      kind = outcome.error === null ? "ok" : "fail";
      const { response, error } = outcome;
      result = JSON.stringify({ customId: item.customId, response, error, last: outcome.attempt });
    } else if (outcome.kind === "retry") attempt = JSON.stringify(outcome.attempt);
    const dueAt = outcome.kind === "retry" ? outcome.dueAt : 0;
    const args = [
      now,
      batchId,
      item.index,
      token,
      kind,
      attempt,
      dueAt,
      result,
      attemptsMade,
      this.#config.resultTtlMs,
    ];
    const reply = (await this.#run("settle", args)) as Array<string | number>;
    if (Number(reply[0]) !== 1) return undefined;
    const [, status, total, completed, failed] = reply;
    const requestCounts = { total: Number(total), completed: Number(completed), failed: Number(failed) };
    return { batch: { id: batchId, status: String(status) as BatchStatus, requestCounts } };
  }

  async cancel(batchId: string, now: number): Promise<Batch | undefined> {
    const reply = await this.#run("cancel", [
      now,
      batchId,
      JSON.stringify(CANCELLED),
      this.#config.resultTtlMs,
    ]);
    return batchOf(fieldsOf(reply));
  }

  async retryFailed(batchId: string, now: number): Promise<Batch | undefined> {
    return batchOf(fieldsOf(await this.#run("retry", [now, batchId])));
  }

  async sweep(now: number): Promise<Batch[]> {
    const ids = (await this.#run("sweep", [
      now,
      JSON.stringify(EXPIRED),
      this.#config.resultTtlMs,
    ])) as string[];
    const batches = await Promise.all(ids.map((id) => this.getBatch(id)));
    return batches.filter((batch): batch is Batch => batch !== undefined);
  }

  async results(batchId: string, from: number, limit: number): Promise<ItemResult[]> {
    await this.#connected();
    const total = Number(await this.#client.hget(this.#keys.batch(batchId), "total"));
    const found: ItemResult[] = [];
    for (let start = from; start < total && found.length === 0; start += limit) {
      const indexes = Array.from({ length: Math.min(limit, total - start) }, (_, i) => String(start + i));
      const [results, attempts] = await Promise.all([
        this.#client.hmget(this.#keys.results(batchId), ...indexes),
        this.#client.hmget(this.#keys.attempts(batchId), ...indexes),
      ]);
      for (const [i, text] of results.entries()) {
        if (text === null) continue;
        const { customId, response, error, last } = JSON.parse(text) as StoredResult;
        const tried = JSON.parse(`[${attempts[i] ?? ""}]`) as Attempt[];
        if (last !== undefined) tried.push(last);
        found.push({ index: start + i, customId, response, error, attempts: tried });
      }
    }
    return found;
  }

  async createFile(file: FileRecord, quota: FileQuota): Promise<void> {
    await this.#connected();
    return this.#files.create(file, quota);
  }

  async appendFileLines(
    fileId: string,
    lines: readonly string[],
    bytes: number,
    quota: FileQuota,
  ): Promise<void> {
    await this.#connected();
    return this.#files.append(fileId, lines, bytes, quota);
  }

  async setFileExpiry(fileId: string, expiresAt: number): Promise<void> {
    await this.#connected();
    return this.#files.setExpiry(fileId, expiresAt);
  }

  async getFile(fileId: string): Promise<FileRecord | undefined> {
    await this.#connected();
    return this.#files.get(fileId);
  }

  async fileLines(fileId: string, from: number, limit: number): Promise<string[]> {
    await this.#connected();
    return this.#files.lines(fileId, from, limit);
  }

  async deleteFile(fileId: string): Promise<boolean> {
    await this.#connected();
    return this.#files.delete(fileId);
  }

  /** Ends the store's own connection (a client you passed in stays open). */
  async close(): Promise<void> {
    if (this.#owned) await this.#client.quit().catch(() => this.#client.disconnect());
  }
}

/**
 * A durable, shared {@link BatchStore} in Redis for `createBatches({ store })`.
 *
 * @example
 * const batches = createBatches({ scheduler, execute, store: redisBatchStore({ url: "redis://127.0.0.1:6379", prefix: "llm:" }) });
 */
export function redisBatchStore(options: RedisBatchStoreOptions = {}): RedisBatchStore {
  return new RedisBatchStore(options);
}

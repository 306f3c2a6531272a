import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { claimGroups } from "./claim-groups.js";
import { MemoryFiles } from "./memory-files.js";
import {
  type BatchState,
  FINAL,
  type ItemState,
  itemState,
  nextDue,
  QUEUED,
  RUNNING,
} from "./memory-queue.js";
import { Retention } from "./memory-retention.js";
import {
  type BatchStore,
  type Claim,
  type ClaimOrder,
  type ClaimReply,
  DEFAULT_CLAIM_ORDER,
  type FileQuota,
  type FileRecord,
  type Outcome,
  type SettleReply,
} from "./store.js";
import { CANCELLED, close, countFinal, EXPIRED, isOpen, type MutableBatch, reopen } from "./transitions.js";
import type { Batch, BatchItem, ItemError, ItemResult, ListOptions } from "./types.js";

const copy = (batch: MutableBatch): Batch => ({ ...batch });

/** Options of {@link MemoryBatchStore}. */
export interface MemoryBatchStoreOptions {
  /**
   * Most bytes of input files kept, all tenants together (each tenant's own caps are options of
   * `createBatches()`); an upload past it is refused with `FILE_STORAGE_FULL` (HTTP 503).
   * @default 1_073_741_824 (1 GiB)
   */
  readonly maxTotalFileBytes?: number;
  /**
   * How long a finished batch (its items, results, and so its output and error files) is kept, in ms,
   * as `resultTtlMs` of the Redis store; a sweep then drops it.
   * @default 604_800_000 (7 days)
   */
  readonly resultTtlMs?: number;
}

/**
 * The default {@link BatchStore}: everything in this instance's memory, lost when it stops. Every
 * method answers at once (a resolved promise); claims take turns between tenants, then between each
 * tenant's open batches, so that neither a big batch nor a tenant with many batches holds back the
 * others before they reach the scheduler's tenant turns.
 *
 * Input files are kept as UTF-8 bytes (about one byte of memory per byte uploaded), within each
 * tenant's quota and `maxTotalFileBytes` in all; a sweep deletes the expired ones, and the batches
 * finished `resultTtlMs` ago.
 *
 * @example
 * const batches = createBatches({ scheduler, execute, store: new MemoryBatchStore({ maxTotalFileBytes: 2 ** 29 }) });
 */
export class MemoryBatchStore implements BatchStore {
  readonly #batches = new Map<string, BatchState>();
  /** Open batches in turn order for claims. */
  #open: BatchState[] = [];
  /** Batches being created: a sweep expires one whose creator stopped before starting it. */
  readonly #validating = new Set<BatchState>();
  /** Tenant turns for claims, then batch turns within each tenant. */
  #turn = 0;
  readonly #batchTurn = new Map<string, number>();
  #token = 0;
  readonly #files: MemoryFiles;
  /** Finished batches, dropped `resultTtlMs` after they finished. */
  readonly #retention: Retention<BatchState>;

  constructor(options: MemoryBatchStoreOptions = {}) {
    if (options === null || typeof options !== "object") throw invalidOption("options", "an object", options);
    rejectUnknownKeys("", options, ["maxTotalFileBytes", "resultTtlMs"]);
    this.#files = new MemoryFiles(
      integerIn("maxTotalFileBytes", options.maxTotalFileBytes, 1, 2 ** 50, 1_073_741_824),
    );
    this.#retention = new Retention(
      integerIn("resultTtlMs", options.resultTtlMs, 1_000, 31_536_000_000, 604_800_000),
    );
  }

  async createBatch(batch: Batch): Promise<void> {
    const state: BatchState = { batch: { ...batch }, items: [], ready: [], readyHead: 0, delayed: [] };
    this.#batches.set(batch.id, state);
    this.#validating.add(state);
  }

  async addItems(batchId: string, items: readonly BatchItem[]): Promise<void> {
    const state = this.#batches.get(batchId);
    if (state === undefined || state.batch.status !== "validating") return;
    for (const item of items) {
      state.items.push(itemState(item));
    }
  }

  async startBatch(batchId: string, total: number, now: number): Promise<Batch | undefined> {
    const state = this.#batches.get(batchId);
    if (state === undefined || state.batch.status !== "validating") return undefined;
    this.#validating.delete(state);
    state.batch.status = "in_progress";
    state.batch.inProgressAt = now;
    state.batch.requestCounts = { total, completed: 0, failed: 0 };
    state.ready = state.items.map((_, index) => index);
    if (total === 0) {
      countFinal(state.batch, true, now);
      this.#retention.finished(state, now);
    } else this.#open.push(state);
    return copy(state.batch);
  }

  async failBatch(batchId: string, errors: readonly ItemError[], now: number): Promise<Batch | undefined> {
    const state = this.#batches.get(batchId);
    if (state === undefined || state.batch.status !== "validating") return undefined;
    this.#validating.delete(state);
    state.items.length = 0;
    state.batch.status = "failed";
    state.batch.failedAt = now;
    this.#retention.finished(state, now);
    state.batch.errors = errors;
    return copy(state.batch);
  }

  async getBatch(batchId: string): Promise<Batch | undefined> {
    const state = this.#batches.get(batchId);
    return state === undefined ? undefined : copy(state.batch);
  }

  async listBatches(options: ListOptions): Promise<Batch[]> {
    const all = [...this.#batches.values()].reverse();
    let start = 0;
    if (options.after !== undefined) {
      start = all.findIndex((state) => state.batch.id === options.after) + 1;
      if (start === 0) return []; // an unknown cursor: nothing after it (as in Redis)
    }
    const found: Batch[] = [];
    for (let i = start; i < all.length && found.length < (options.limit ?? 20); i++) {
      const batch = all[i]!.batch;
      if (options.tenant !== undefined && batch.tenant !== options.tenant) continue;
      if (options.status !== undefined && batch.status !== options.status) continue;
      found.push(copy(batch));
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
    const claims: Claim[] = [];
    for (const group of claimGroups(this.#open, (state) => state.batch, order)) {
      if (claims.length >= limit) break;
      this.#takeTurns(group, limit, now, visibilityMs, claims);
    }
    let nextDueAt: number | undefined;
    for (const state of this.#open) {
      for (const entry of state.delayed) {
        if (nextDueAt === undefined || entry.dueAt < nextDueAt) nextDueAt = entry.dueAt;
      }
    }
    return { claims, nextDueAt };
  }

  /** Claims due items of one group into `claims` (up to `limit` in all), its tenants taking turns. */
  #takeTurns(group: BatchState[], limit: number, now: number, visibilityMs: number, claims: Claim[]): void {
    const tenants = [...new Set(group.map((state) => state.batch.tenant))];
    let idle = 0;
    while (claims.length < limit && idle < tenants.length) {
      const tenant = tenants[this.#turn++ % tenants.length]!;
      const found = this.#dueOf(group, tenant, now);
      if (found === undefined) {
        idle++;
        continue;
      }
      idle = 0;
      const [state, index] = found;
      const entry = state.items[index]!;
      entry.phase = RUNNING;
      entry.token = ++this.#token;
      entry.deadline = now + visibilityMs;
      const { completed, failed } = state.batch.requestCounts;
      state.batch.runningSince ??= { at: now, done: completed + failed };
      claims.push(this.#claimOf(state, entry));
    }
  }

  /** The next due item of one tenant in a group, its batches taking turns. */
  #dueOf(group: BatchState[], tenant: string, now: number): [BatchState, number] | undefined {
    const mine = group.filter((state) => state.batch.tenant === tenant);
    const start = this.#batchTurn.get(tenant) ?? 0;
    for (let j = 0; j < mine.length; j++) {
      const state = mine[(start + j) % mine.length]!;
      const index = nextDue(state, now);
      if (index === undefined) continue;
      this.#batchTurn.set(tenant, (start + j + 1) % mine.length);
      return [state, index];
    }
    return undefined;
  }

  #claimOf(state: BatchState, entry: ItemState): Claim {
    const { batch } = state;
    return {
      batchId: batch.id,
      tenant: batch.tenant,
      priority: batch.priority,
      retry: batch.retry,
      item: entry.item,
      token: entry.token,
      attemptsMade: entry.attempts.length - entry.roundStart,
    };
  }

  async extend(claims: readonly Claim[], now: number, visibilityMs: number): Promise<Claim[]> {
    const lost: Claim[] = [];
    for (const claim of claims) {
      const entry = this.#held(claim);
      if (entry === undefined) lost.push(claim);
      else entry.deadline = now + visibilityMs;
    }
    return lost;
  }

  #held(claim: Claim): ItemState | undefined {
    const state = this.#batches.get(claim.batchId);
    const entry = state?.items[claim.item.index];
    if (entry === undefined || entry.phase !== RUNNING || entry.token !== claim.token) return undefined;
    if (state === undefined || !isOpen(state.batch.status)) return undefined;
    return entry;
  }

  async settle(claim: Claim, outcome: Outcome, now: number): Promise<SettleReply | undefined> {
    const entry = this.#held(claim);
    const state = this.#batches.get(claim.batchId);
    if (entry === undefined || state === undefined) return undefined;
    entry.token = ++this.#token;
    if (outcome.kind === "final") {
      entry.attempts.push(outcome.attempt);
      this.#finish(state, entry, outcome.response, outcome.error, now);
    } else {
      if (outcome.kind === "retry") entry.attempts.push(outcome.attempt);
      entry.phase = QUEUED;
      entry.dueAt = outcome.kind === "retry" ? outcome.dueAt : now;
      if (entry.dueAt > now) state.delayed.push(entry);
      else state.ready.push(entry.item.index);
    }
    return { batch: copy(state.batch) };
  }

  #finish(
    state: BatchState,
    entry: ItemState,
    response: ItemResult["response"],
    error: ItemError | null,
    now: number,
  ): void {
    entry.phase = FINAL;
    const { index, customId } = entry.item;
    entry.result = { index, customId, response, error, attempts: entry.attempts };
    countFinal(state.batch, error === null, now);
    if (!isOpen(state.batch.status)) this.#closeState(state, now);
  }

  #closeState(state: BatchState, now: number): void {
    this.#retention.finished(state, now);
    this.#validating.delete(state);
    const at = this.#open.indexOf(state);
    if (at >= 0) this.#open.splice(at, 1);
    state.ready = [];
    state.readyHead = 0;
    state.delayed = [];
  }

  /** Ends every open item of an open batch with `error`. */
  #endOpen(state: BatchState, status: "expired" | "cancelled", now: number): void {
    const error = status === "expired" ? EXPIRED : CANCELLED;
    let open = 0;
    for (const entry of state.items) {
      if (entry.phase === FINAL) continue;
      open++;
      entry.phase = FINAL;
      entry.token = ++this.#token;
      const { index, customId } = entry.item;
      entry.result = { index, customId, response: null, error, attempts: entry.attempts };
    }
    close(state.batch, status, open, now);
    this.#closeState(state, now);
  }

  async cancel(batchId: string, now: number): Promise<Batch | undefined> {
    const state = this.#batches.get(batchId);
    if (state === undefined) return undefined;
    if (state.batch.status === "validating") state.items.length = 0; // never started, as in Redis
    if (state.batch.status === "in_progress" || state.batch.status === "validating") {
      this.#endOpen(state, "cancelled", now);
    }
    return copy(state.batch);
  }

  async retryFailed(batchId: string, now: number): Promise<Batch | undefined> {
    const state = this.#batches.get(batchId);
    if (state === undefined) return undefined;
    const status = state.batch.status;
    if (status !== "completed" && status !== "expired" && status !== "cancelled") return copy(state.batch);
    const again = state.items.filter((entry) => entry.result !== null && entry.result.error !== null);
    if (again.length === 0) return copy(state.batch);
    for (const entry of again) {
      entry.phase = QUEUED;
      entry.result = null;
      entry.dueAt = now;
      entry.roundStart = entry.attempts.length;
      state.ready.push(entry.item.index);
    }
    reopen(state.batch, again.length, now);
    this.#retention.reopened(state);
    this.#open.push(state);
    return copy(state.batch);
  }

  async sweep(now: number): Promise<Batch[]> {
    this.#files.purge(now);
    for (const state of this.#retention.due(now)) this.#batches.delete(state.batch.id);
    const expired: Batch[] = [];
    for (const state of [...this.#validating]) {
      if (state.batch.expiresAt > now) continue;
      state.items.length = 0; // never started: nothing ran, nothing to report per item
      this.#endOpen(state, "expired", now);
      expired.push(copy(state.batch));
    }
    for (const state of [...this.#open]) {
      this.#reclaim(state, now);
      if (state.batch.expiresAt > now) continue;
      this.#endOpen(state, "expired", now);
      expired.push(copy(state.batch));
    }
    return expired;
  }

  /** Items whose claim lapsed (the instance stopped extending it) are queued again. */
  #reclaim(state: BatchState, now: number): void {
    for (const entry of state.items) {
      if (entry.phase !== RUNNING || entry.deadline > now) continue;
      entry.phase = QUEUED;
      entry.token = ++this.#token;
      state.ready.push(entry.item.index);
    }
  }

  async results(batchId: string, from: number, limit: number): Promise<ItemResult[]> {
    const items = this.#batches.get(batchId)?.items ?? [];
    const found: ItemResult[] = [];
    for (let i = from; i < items.length && found.length < limit; i++) {
      const result = items[i]!.result;
      if (result !== null) found.push(result);
    }
    return found;
  }

  async createFile(file: FileRecord, quota: FileQuota): Promise<void> {
    this.#files.create(file, quota);
  }

  async appendFileLines(
    fileId: string,
    lines: readonly string[],
    bytes: number,
    quota: FileQuota,
  ): Promise<void> {
    this.#files.append(fileId, lines, bytes, quota);
  }

  async setFileExpiry(fileId: string, expiresAt: number): Promise<void> {
    this.#files.setExpiry(fileId, expiresAt);
  }

  async getFile(fileId: string): Promise<FileRecord | undefined> {
    return this.#files.get(fileId);
  }

  async fileLines(fileId: string, from: number, limit: number): Promise<string[]> {
    return this.#files.lines(fileId, from, limit);
  }

  async deleteFile(fileId: string): Promise<boolean> {
    return this.#files.delete(fileId);
  }

  /** Bytes of input files kept now, all tenants together. */
  get fileBytes(): number {
    return this.#files.totalBytes;
  }

  async close(): Promise<void> {}
}

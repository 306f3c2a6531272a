import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { type BatchStatusCounts, countByStatus } from "./counts.js";
import {
  type CreateBatchOptions,
  checkItem,
  MAX_ITEMS,
  type ResolvedCreate,
  resolveCreate,
} from "./create-options.js";
import { BatchError, BatchErrorCode, batchIdOf, batchNotFound } from "./errors.js";
import { estimateInputs, withEstimate } from "./estimate.js";
import { BatchEmitter, type BatchEvents } from "./events.js";
import { copyFileItems } from "./from-file.js";
import { newId } from "./ids.js";
import { type BatchesCoreOptions, type ResolvedBatchesOptions, resolveBatchesOptions } from "./options.js";
import { Runner } from "./runner.js";
import { sameTenant } from "./same-tenant.js";
import type { BatchStore } from "./store.js";
import {
  BATCH_STATUSES,
  type Batch,
  type BatchView,
  type ItemError,
  type ItemResult,
  type ListOptions,
} from "./types.js";

const CHUNK = 500;
/**
 * Batch jobs on top of a scheduler: every item runs through `scheduler.run()` at the batch's priority
 * and tenant, with retries, a completion window, cancel and `retryFailed`; state lives in a
 * {@link BatchStore}. Create it with {@link createBatches}.
 *
 * @example
 * const batches = createBatches({ scheduler, execute });
 * await batches.create({ items, tenant: "eval-team" });
 */
export class Batches {
  readonly #options: ResolvedBatchesOptions;
  readonly #events: BatchEmitter;
  readonly #runner: Runner;
  #closed = false;

  constructor(options: BatchesCoreOptions) {
    this.#options = resolveBatchesOptions(options);
    const { onError } = this.#options;
    this.#events = new BatchEmitter(onError);
    this.#runner = new Runner(this.#options, this.#events);
    this.#runner.start();
  }

  /** The store in use. */
  get store(): BatchStore {
    return this.#options.store;
  }

  /**
   * Validates and saves a batch, then starts running it. Throws `INVALID_OPTION` (naming the field, or
   * both places of a duplicate `customId`) and saves nothing when the input is invalid.
   *
   * @example
   * const batch = await batches.create({ items: [{ customId: "q-1", url: "/v1/chat/completions", body }], tenant: "eval-team" });
   */
  async create(options: CreateBatchOptions): Promise<Batch> {
    this.#open();
    const { items, ...rest } = (options ?? {}) as CreateBatchOptions;
    const resolved = resolveCreate(rest, this.#options.retry);
    this.#checkPriority(resolved.priority);
    if (!Array.isArray(items) || items.length === 0 || items.length > MAX_ITEMS) {
      throw invalidOption(
        "items",
        `an array of 1 to ${MAX_ITEMS} items`,
        Array.isArray(items) ? items.length : items,
      );
    }
    const seen = new Map<string, number>();
    const checked = items.map((item, index) => checkItem(item, index, seen, resolved.endpoint));
    const batch = await this.#save(resolved, null);
    for (let from = 0; from < checked.length; from += CHUNK) {
      await this.store.addItems(batch.id, checked.slice(from, from + CHUNK));
    }
    return this.#start(batch.id, checked.length);
  }

  /**
   * Creates a batch from the lines of a stored input file (what `POST /v1/batches` does), read in pages.
   * A line that is invalid there makes the batch `failed` with the line number in `errors`.
   *
   * @example
   * const batch = await batches.createFromFile(file.id, { endpoint: "/v1/chat/completions", tenant });
   */
  async createFromFile(fileId: string, options: Omit<CreateBatchOptions, "items">): Promise<Batch> {
    this.#open();
    if (typeof fileId !== "string" || fileId.length === 0 || fileId.length > 256) {
      throw invalidOption("fileId", "a file id (a non-empty string)", fileId);
    }
    const resolved = resolveCreate(options, this.#options.retry);
    this.#checkPriority(resolved.priority);
    const file = await this.store.getFile(fileId);
    // an expired file the sweep has not deleted yet is gone already
    if (
      file === undefined ||
      !sameTenant(file.tenant, resolved.tenant) ||
      file.expiresAt <= this.#options.clock.now()
    ) {
      throw new BatchError(
        BatchErrorCode.FILE_NOT_FOUND,
        `No file found with id \`${fileId.slice(0, 128)}\``,
      );
    }
    const batch = await this.#save(resolved, fileId);
    const read = await copyFileItems(this.store, file, batch.id, resolved.endpoint);
    return "error" in read ? this.#fail(batch.id, read.error) : this.#start(batch.id, read.total);
  }

  async #save(resolved: ResolvedCreate, inputFileId: string | null): Promise<Batch> {
    const now = this.#options.clock.now();
    const id = newId("batch");
    const batch: Batch = {
      id,
      ...resolved,
      status: "validating",
      inputFileId,
      outputFileId: `file-${id}-output`,
      errorFileId: `file-${id}-errors`,
      requestCounts: { total: 0, completed: 0, failed: 0 },
      errors: null,
      createdAt: now,
      expiresAt: now + resolved.completionWindowMs,
      inProgressAt: null,
      finalizingAt: null,
      completedAt: null,
      failedAt: null,
      expiredAt: null,
      cancellingAt: null,
      cancelledAt: null,
      runningSince: null,
    };
    await this.store.createBatch(batch);
    return batch;
  }

  async #start(id: string, total: number): Promise<Batch> {
    // undefined: a sweep ended it while its items were saved (its window was shorter than that)
    const started =
      (await this.store.startBatch(id, total, this.#options.clock.now())) ?? (await this.store.getBatch(id));
    if (started === undefined) throw batchNotFound(id);
    this.#runner.announce(started);
    this.#runner.wake();
    return started;
  }

  async #fail(id: string, error: ItemError): Promise<Batch> {
    const failed =
      (await this.store.failBatch(id, [error], this.#options.clock.now())) ?? (await this.store.getBatch(id));
    if (failed === undefined) throw batchNotFound(id);
    this.#runner.announce(failed);
    return failed;
  }

  #checkPriority(priority: string): void {
    const known = this.#options.scheduler.options.priorities.map((p) => p.name);
    if (!known.includes(priority))
      throw invalidOption("priority", `a configured priority (${known.join(", ")})`, priority);
  }

  /**
   * The batch with its status, counts and completion estimate (`estimatedCompletionAt`, from the work
   * ahead of it in the claim order), or `undefined` when there is none with this id.
   *
   * @example
   * const { status, requestCounts } = (await batches.get(batch.id))!;
   */
  async get(id: string): Promise<BatchView | undefined> {
    const batch = await this.store.getBatch(batchIdOf(id));
    if (batch === undefined) return undefined;
    return this.#withEstimates([batch]).then(([view]) => view);
  }

  /**
   * The final results of a batch's items, in item order (items still running are skipped), read from
   * the store in pages.
   *
   * @example
   * for await (const r of batches.results(batch.id)) console.log(r.customId, r.response?.statusCode, r.error?.code);
   */
  async *results(id: string): AsyncGenerator<ItemResult> {
    batchIdOf(id);
    for (let from = 0; ; ) {
      const page = await this.store.results(id, from, CHUNK);
      if (page.length === 0) return;
      yield* page;
      from = page[page.length - 1]!.index + 1;
    }
  }

  /**
   * Stops a batch: items not yet done end as `batch_cancelled`, running attempts are aborted, finished
   * results are kept. Throws `BATCH_NOT_FOUND` for an unknown id.
   *
   * @example
   * await batches.cancel(batch.id);
   */
  async cancel(id: string): Promise<Batch> {
    batchIdOf(id);
    const batch = await this.store.cancel(id, this.#options.clock.now());
    if (batch === undefined) throw batchNotFound(id);
    this.#runner.abortBatch(id);
    this.#runner.announce(batch);
    return batch;
  }

  /**
   * Runs the failed items of a finished batch again (and only them); the batch is `in_progress` again
   * with a new completion window. Throws `BATCH_NOT_FOUND` for an unknown id.
   *
   * @example
   * await batches.retryFailed(batch.id);
   */
  async retryFailed(id: string): Promise<Batch> {
    this.#open();
    batchIdOf(id);
    const batch = await this.store.retryFailed(id, this.#options.clock.now());
    if (batch === undefined) throw batchNotFound(id);
    this.#runner.announce(batch);
    this.#runner.wake();
    return batch;
  }

  /**
   * Batches, newest first, filtered by tenant and status; `after` is the last id of the previous page.
   *
   * @example
   * const page = await batches.list({ tenant: "eval-team", status: "in_progress", limit: 10 });
   */
  list(options: ListOptions = {}): Promise<BatchView[]> {
    if (options === null || typeof options !== "object") throw invalidOption("options", "an object", options);
    rejectUnknownKeys("", options, ["tenant", "status", "after", "limit"]);
    const limit = integerIn("limit", options.limit, 1, 100, 20);
    if (options.status !== undefined && !BATCH_STATUSES.includes(options.status)) {
      throw invalidOption("status", BATCH_STATUSES.join(", "), options.status);
    }
    return this.store.listBatches({ ...options, limit }).then((page) => this.#withEstimates(page));
  }

  /** The batches with their estimates; the other batches are read only when one of them is open. */
  async #withEstimates(batches: readonly Batch[]): Promise<BatchView[]> {
    const others = batches.some((b) => b.status === "in_progress") ? await estimateInputs(this.store) : [];
    const now = this.#options.clock.now();
    return batches.map((batch) => withEstimate(batch, others, this.#options.order, now));
  }

  /**
   * Adds a listener; returns a function that removes it. A listener that throws goes to `onError`.
   *
   * @example
   * batches.on("progress", ({ id, requestCounts }) => console.log(id, requestCounts.completed));
   */
  on<K extends keyof BatchEvents>(name: K, listener: (event: BatchEvents[K]) => void): () => void {
    return this.#events.on(name, listener);
  }

  /**
   * Batches by status and their items as `completed`, `failed` and `pending`, over the newest 10,000
   * batches of every tenant: what `collectMetrics(scheduler, { registry, batches })` of
   * `@llm-scheduler/prometheus` reads at scrape time.
   *
   * @example
   * const { batches: byStatus, items } = await batches.statusCounts();
   */
  statusCounts(): Promise<BatchStatusCounts> {
    return countByStatus(this.store);
  }

  /** Items this instance is running now. */
  get inFlight(): number {
    return this.#runner.inFlight;
  }

  /** The resolved options (read by layers on top, such as the HTTP one). */
  get options(): ResolvedBatchesOptions {
    return this.#options;
  }

  #open(): void {
    if (this.#closed) throw new BatchError(BatchErrorCode.CLOSED, "The batch layer is closed");
  }

  /**
   * Stops claiming items and gives back the ones running (another instance, or this one after a restart,
   * takes them again); resolves once every attempt has ended. Leaves the store and scheduler open.
   *
   * @example
   * await batches.close();
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#runner.close();
  }
}

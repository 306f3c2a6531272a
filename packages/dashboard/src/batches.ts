/** Counts of one batch, as `@llm-scheduler/batches` reports them. */
export interface BatchCounts {
  readonly total: number;
  readonly completed: number;
  readonly failed: number;
}

/** What the dashboard reads of one batch. Other fields are ignored, and never shown. */
export interface BatchLike {
  readonly id: string;
  readonly status: string;
  readonly requestCounts: BatchCounts;
  readonly tenant?: string;
  readonly createdAt?: number;
}

/** One result of a batch; only failed ones are shown, by their id, error and attempts (never a body). */
export interface BatchResultLike {
  readonly customId: string;
  readonly error?: { readonly code?: string; readonly message?: string } | string | null;
  readonly attempts?: number | readonly unknown[];
}

/**
 * The part of `@llm-scheduler/batches` the dashboard uses, so that any object of this shape works:
 * `list()` (an array, a `{ data }` page, or a promise of either), `get(id)`, `cancel(id)`,
 * `retryFailed(id)`, and optionally `results(id)` (to show failed items) and `on("progress" | "done")`
 * (to read the list again at once; when `on` returns a function, `dashboard.close()` calls it).
 */
export interface BatchesLike {
  list(query?: { readonly limit?: number }): unknown;
  get(id: string): unknown;
  cancel(id: string): unknown;
  retryFailed(id: string): unknown;
  results?(id: string): AsyncIterable<BatchResultLike> | Iterable<BatchResultLike>;
  on?(name: "progress" | "done", listener: (event: unknown) => void): unknown;
}

/** A batch as the snapshot carries it. */
export interface BatchView {
  readonly id: string;
  readonly status: string;
  readonly tenant: string | null;
  readonly total: number;
  readonly completed: number;
  readonly failed: number;
}

/** A failed item as the page shows it. */
export interface FailedItemView {
  readonly customId: string;
  readonly error: string;
  readonly attempts: number;
}

const SHOWN_BATCHES = 20;
const SHOWN_FAILURES = 20;
/** Results read at most when looking for failed items, so a huge batch costs a bounded scan. */
const SCANNED_RESULTS = 10_000;

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

function text(value: unknown, max: number): string {
  const shown = typeof value === "string" ? value : String(value ?? "");
  return shown.length > max ? `${shown.slice(0, max)}…` : shown;
}

/**
 * Keeps only counts, status, id and tenant of a batch; anything else it holds is never shown.
 *
 * @example
 * batchView({ id: "b1", status: "in_progress", requestCounts: { total: 3, completed: 1, failed: 0 } });
 */
export function batchView(value: unknown): BatchView | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const batch = value as Partial<BatchLike>;
  if (typeof batch.id !== "string") return undefined;
  const counts: Partial<BatchCounts> = batch.requestCounts ?? {};
  return {
    id: text(batch.id, 200),
    status: text(batch.status, 40),
    tenant: typeof batch.tenant === "string" ? text(batch.tenant, 200) : null,
    total: count(counts.total),
    completed: count(counts.completed),
    failed: count(counts.failed),
  };
}

/**
 * The newest batches, at most 20, as views. A `batches` whose `list()` throws shows none.
 *
 * @example
 * const views = await listBatches(batches);
 */
export async function listBatches(batches: BatchesLike | undefined): Promise<BatchView[]> {
  if (batches === undefined) return [];
  try {
    const page = await batches.list({ limit: SHOWN_BATCHES });
    const items = Array.isArray(page) ? page : (page as { data?: unknown } | null)?.data;
    if (!Array.isArray(items)) return [];
    return items.slice(0, SHOWN_BATCHES).flatMap((item) => batchView(item) ?? []);
  } catch {
    return [];
  }
}

function errorText(error: BatchResultLike["error"]): string {
  if (typeof error === "string") return text(error, 300);
  if (error === null || error === undefined) return "";
  return text([error.code, error.message].filter((part) => part !== undefined).join(": "), 300);
}

function attemptCount(attempts: BatchResultLike["attempts"]): number {
  return Array.isArray(attempts) ? attempts.length : count(attempts);
}

/**
 * The first 20 failed items of a batch (among its first 10,000 results): custom id, latest error,
 * attempts. Needs `results(id)`.
 *
 * @example
 * const failed = await failedItems(batches, "batch_1");
 */
export async function failedItems(batches: BatchesLike, id: string): Promise<FailedItemView[]> {
  if (typeof batches.results !== "function") return [];
  const found: FailedItemView[] = [];
  let scanned = 0;
  for await (const result of batches.results(id)) {
    if (++scanned > SCANNED_RESULTS) break;
    if (result.error === undefined || result.error === null) continue;
    found.push({
      customId: text(result.customId, 200),
      error: errorText(result.error),
      attempts: attemptCount(result.attempts),
    });
    if (found.length >= SHOWN_FAILURES) break;
  }
  return found;
}

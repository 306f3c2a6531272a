import type { Scheduler } from "@llm-scheduler/core";

/** The write-up's batch: an id and its items. */
export interface BatchTask {
  readonly batchId: string;
  readonly items: readonly unknown[];
}

/** Counts of one submitted batch. */
export interface BatchProgress {
  readonly done: number;
  readonly total: number;
  readonly failed: number;
}

/** A scheduler with `run()` (`createScheduler()`), or the write-up's `LlmScheduler` with `submit()`. */
type AnyScheduler =
  | Pick<Scheduler, "run">
  | { submit<T>(id: string, priority: "batch", run: (signal: AbortSignal) => Promise<T>): Promise<T> };

const KEEP = 1_000;
const progress = new Map<string, { done: number; total: number; failed: number }>();

/**
 * The write-up's `submitBatch`: every item goes into the scheduler at priority `batch`, and the counts
 * are kept for {@link getBatchProgress} (in this process only, for the last 1,000 batches; use
 * `createBatches()` for durable batches with retries and results). `work` runs one item; without it,
 * items must be functions of an `AbortSignal`. Resolves when every item has settled.
 *
 * @example
 * await submitBatch({ batchId: "b-1", items: prompts }, scheduler, (prompt, signal) => callModel(prompt, { signal }));
 * getBatchProgress("b-1"); // { done: 500, total: 500, failed: 0 }
 */
export async function submitBatch(
  batch: BatchTask,
  scheduler: AnyScheduler,
  work?: (item: unknown, signal: AbortSignal) => Promise<unknown>,
): Promise<void> {
  const entry = { done: 0, total: batch.items.length, failed: 0 };
  progress.delete(batch.batchId);
  progress.set(batch.batchId, entry);
  if (progress.size > KEEP) progress.delete(progress.keys().next().value as string);
  const runOne = (item: unknown, signal: AbortSignal): Promise<unknown> => {
    if (work !== undefined) return work(item, signal);
    if (typeof item === "function") return Promise.resolve(item(signal));
    return Promise.reject(new TypeError("submitBatch: pass `work`, or items that are functions of a signal"));
  };
  const runs = batch.items.map((item, index) => {
    const id = `${batch.batchId}-${index}`;
    const settled =
      "run" in scheduler
        ? scheduler.run(({ signal }) => runOne(item, signal), { priority: "batch", id })
        : scheduler.submit(id, "batch", (signal) => runOne(item, signal));
    return settled.then(
      () => {
        entry.done++;
      },
      () => {
        entry.failed++;
      },
    );
  });
  await Promise.allSettled(runs);
}

/**
 * The write-up's `getBatchProgress`: `{ done, total, failed }` of a batch given to {@link submitBatch},
 * or zeros for an unknown id.
 *
 * @example
 * const { done, total, failed } = getBatchProgress("b-1");
 */
export function getBatchProgress(batchId: string): BatchProgress {
  const entry = progress.get(batchId);
  return entry === undefined ? { done: 0, total: 0, failed: 0 } : { ...entry };
}

import type { BatchStore } from "./store.js";

/**
 * Batches and their items counted by status, in the shape `collectMetrics(scheduler, { batches })` of
 * `@llm-scheduler/prometheus` reads: `batches` by batch status, `items` as `completed`, `failed` and
 * `pending` (not final yet: queued, waiting for a retry or running on some instance).
 */
export interface BatchStatusCounts {
  readonly batches: Readonly<Record<string, number>>;
  readonly items: Readonly<Record<string, number>>;
}

/** Batches read at most per count, so a scrape costs a bounded scan (the newest are counted). */
const COUNTED_BATCHES = 10_000;
const PAGE = 100;

/**
 * Counts the newest {@link COUNTED_BATCHES} batches of every tenant by status, reading the store in pages.
 *
 * @example
 * const { batches, items } = await countByStatus(store); // { batches: { completed: 3 }, items: { completed: 30, failed: 1, pending: 0 } }
 */
export async function countByStatus(store: BatchStore): Promise<BatchStatusCounts> {
  const batches: Record<string, number> = {};
  const items = { completed: 0, failed: 0, pending: 0 };
  let after: string | undefined;
  for (let seen = 0; seen < COUNTED_BATCHES; ) {
    const page = await store.listBatches({ limit: PAGE, ...(after === undefined ? {} : { after }) });
    for (const batch of page.slice(0, COUNTED_BATCHES - seen)) {
      batches[batch.status] = (batches[batch.status] ?? 0) + 1;
      const { total, completed, failed } = batch.requestCounts;
      items.completed += completed;
      items.failed += failed;
      items.pending += Math.max(0, total - completed - failed);
    }
    seen += page.length;
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.id;
  }
  return { batches, items };
}

import { Batches } from "./batches.js";
import type { BatchesOptions } from "./options.js";

/**
 * Batch jobs on a scheduler: `create`, `get`, `results`, `cancel`, `retryFailed`, `list`, events, and an
 * OpenAI-compatible HTTP API with `fetch(request)`. Every item runs through `scheduler.run()`.
 *
 * @example
 * const batches = createBatches({ scheduler, execute: openaiExecutor({ baseURL: "http://127.0.0.1:8000/v1", apiKey }) });
 * const batch = await batches.create({ items: [{ customId: "q-1", url: "/v1/chat/completions", body }], tenant: "eval-team" });
 */
export function createBatches(options: BatchesOptions): Batches {
  return new Batches(options);
}

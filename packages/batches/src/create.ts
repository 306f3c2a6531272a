import { invalidOption } from "@llm-scheduler/core/kit";
import { Batches } from "./batches.js";
import { type BatchesHandler, handlerOf } from "./http/handler.js";
import { BATCHES_HTTP, type BatchesHttpOptions, resolveHttpOptions } from "./http/options.js";
import type { BatchesCoreOptions } from "./options.js";

/** Options of {@link createBatches}: the batch layer's and its HTTP layer's. */
export interface BatchesOptions extends BatchesCoreOptions, BatchesHttpOptions {}

/** A batch layer with its HTTP layer wired in as `fetch` (what {@link createBatches} returns). */
export type ServedBatches = Batches & {
  /**
   * OpenAI's Files and Batches API over web `Request`/`Response` (so the official `openai` client works
   * unchanged): `POST /v1/files`, `GET|DELETE /v1/files/{id}`, `GET /v1/files/{id}/content`,
   * `POST|GET /v1/batches`, `GET /v1/batches/{id}`, `POST /v1/batches/{id}/cancel`. Never throws.
   * Closed (every request a 401) without the `tenant` option.
   *
   * @example
   * app.all("/v1/files/*", (c) => batches.fetch(c.req.raw)); // Hono
   */
  readonly fetch: BatchesHandler;
};

/**
 * Batch jobs on a scheduler: `create`, `get`, `results`, `cancel`, `retryFailed`, `list`, events, and an
 * OpenAI-compatible HTTP API with `fetch(request)`. Every item runs through `scheduler.run()`. The
 * HTTP options are checked before anything starts; `new Batches(options)` and
 * `batchesHandler(batches, httpOptions)` are the two layers apart.
 *
 * @example
 * const batches = createBatches({ scheduler, execute: openaiExecutor({ baseURL: "http://127.0.0.1:8000/v1", apiKey }) });
 * const batch = await batches.create({ items: [{ customId: "q-1", url: "/v1/chat/completions", body }], tenant: "eval-team" });
 */
export function createBatches(options: BatchesOptions): ServedBatches {
  if (options === null || typeof options !== "object") throw invalidOption("options", "an object", options);
  const core: Record<string, unknown> = {};
  const http: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options))
    (Object.hasOwn(BATCHES_HTTP, key) ? http : core)[key] = value;
  const served = resolveHttpOptions(http, options.scheduler);
  const batches = new Batches(core as unknown as BatchesCoreOptions);
  return Object.assign(batches, { fetch: handlerOf(batches, served) });
}

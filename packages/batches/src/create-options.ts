import { ErrorCode, SchedulerError } from "@llm-scheduler/core";
import {
  custom,
  type InferShape,
  integer,
  invalidOption,
  rejectUnknownKeys,
  resolveShape,
  string,
} from "@llm-scheduler/core/kit";
import { retryOf } from "./retry-policy.js";
import type { BatchItem, BatchItemInput, RetryPolicy } from "./types.js";

/**
 * Most items in one batch (OpenAI's limit).
 *
 * @example
 * if (items.length > MAX_ITEMS) splitInTwo(items);
 */
export const MAX_ITEMS = 50_000;

/** Options of `create()`, declared once: checks, types and the README table come from here. */
export const CREATE = {
  items: custom<readonly BatchItemInput[]>({
    // Checked one by one by `checkItem`, naming the index; `create()` checks they are given.
    check: (_path, value) => value as readonly BatchItemInput[],
    range: "1 to 50,000 items",
    json: { type: "array", minItems: 1, maxItems: MAX_ITEMS },
    shownDefault: "required",
    doc: "the requests `{ customId, method?, url, body }`; each `customId` unique within the batch",
  }),
  tenant: string(256, { default: "default", doc: "whose batch it is: the scheduler's tenant of every item" }),
  priority: string(64, { default: "batch", doc: "the scheduler priority every item runs at" }),
  completionWindowMs: integer(1, 2_592_000_000, {
    default: 86_400_000,
    shownDefault: "24 h",
    doc: "items not done this long after creation end as `batch_expired`",
  }),
  retry: custom<Partial<RetryPolicy>>({
    // Checked by `retryOf` over the batch layer's `retry`, which fills the fields left out.
    check: (_path, value) => value as Partial<RetryPolicy>,
    range: "`{ maxAttempts, baseMs, maxMs }`",
    json: { type: "object" },
    shownDefault: "the batch layer's `retry`",
    doc: "the retry policy of this batch's items",
  }),
  metadata: custom<Readonly<Record<string, string>>>({
    check: (_path, value) => metadataOf(value) as Readonly<Record<string, string>>,
    range: "up to 16 string pairs (keys up to 64 characters, values up to 512)",
    json: { type: "object", maxProperties: 16, additionalProperties: { type: "string", maxLength: 512 } },
    doc: "returned as given",
  }),
  endpoint: custom<string>({
    check: (path, value) => {
      if (typeof value === "string" && BATCH_ENDPOINTS.includes(value)) return value;
      throw invalidOption(path, `one of ${BATCH_ENDPOINTS.join(", ")}`, value);
    },
    range: "one of `BATCH_ENDPOINTS`",
    json: { type: "string" },
    shownDefault: "none: each item's `url` decides",
    doc: "the endpoint every item must call (`/v1/chat/completions`)",
  }),
};

/** Options of `create()`. */
export type CreateBatchOptions = InferShape<typeof CREATE> & { readonly items: readonly BatchItemInput[] };

/** Options of `create()` after validation, without the items. */
export type ResolvedCreate = ReturnType<typeof resolveCreate>;

const ITEM_KEYS = ["customId", "method", "url", "body"];
/**
 * The endpoints a batch item may call: those OpenAI's Batch API accepts (its `endpoint` parameter).
 * An item's `url` must be one of them exactly, so no path (`/v1/../admin`, `%2e%2e`, `\`) can leave
 * them on the upstream.
 *
 * @example
 * if (!BATCH_ENDPOINTS.includes(url)) refuse(url);
 */
export const BATCH_ENDPOINTS: readonly string[] = [
  "/v1/responses",
  "/v1/chat/completions",
  "/v1/embeddings",
  "/v1/completions",
  "/v1/moderations",
  "/v1/images/generations",
  "/v1/images/edits",
  "/v1/videos",
];

/** Non-empty strings of at most so many characters: an item's `customId` and `url`, a metadata key. */
const CUSTOM_ID = string(512, { doc: "" });
const URL_TEXT = string(2_048, { doc: "" });
const METADATA_KEY = string(64, { doc: "" });

function metadataOf(value: unknown): Readonly<Record<string, string>> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object" || Array.isArray(value)) throw invalidOption("metadata", "an object", value);
  const entries = Object.entries(value);
  if (entries.length > 16) throw invalidOption("metadata", "an object of at most 16 keys", entries.length);
  for (const [key, entry] of entries) {
    METADATA_KEY.check("metadata key", key);
    if (typeof entry !== "string" || entry.length > 512) {
      throw invalidOption(`metadata.${key}`, "a string of at most 512 characters", entry);
    }
  }
  return { ...(value as Record<string, string>) };
}

/**
 * Validates `create()`'s options except the items (`INVALID_OPTION` naming the field).
 *
 * @example
 * resolveCreate({ items, tenant: "eval-team", completionWindowMs: 3_600_000 });
 */
export function resolveCreate(options: Omit<CreateBatchOptions, "items">, defaults?: RetryPolicy) {
  const { items: _items, ...resolved } = resolveShape(CREATE, options);
  return {
    ...resolved,
    retry: retryOf(resolved.retry, defaults),
    metadata: resolved.metadata ?? null,
    endpoint: resolved.endpoint ?? null,
  };
}

/**
 * Checks one item and gives it its index; `seen` maps the custom ids met so far to their index, so a
 * duplicate is named with both places.
 *
 * @example
 * const seen = new Map<string, number>();
 * items.map((item, index) => checkItem(item, index, seen, "/v1/chat/completions"));
 */
export function checkItem(
  value: BatchItemInput,
  index: number,
  seen: Map<string, number>,
  endpoint: string | null,
  where = `items[${index}]`,
  placeOf: (index: number) => string = (first) => `items[${first}]`,
): BatchItem {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw invalidOption(where, "an object", value);
  rejectUnknownKeys(where, value, ITEM_KEYS);
  const customId = CUSTOM_ID.check(`${where}.customId`, value.customId);
  const first = seen.get(customId);
  if (first !== undefined) {
    throw new SchedulerError(
      ErrorCode.INVALID_OPTION,
      `Duplicate customId \`${customId}\` at ${where}; it is already used at ${placeOf(first)}: every customId must be unique within a batch`,
    );
  }
  seen.set(customId, index);
  if (value.method !== undefined && String(value.method).toUpperCase() !== "POST")
    throw invalidOption(`${where}.method`, '"POST" (the only method of a batch item)', value.method);
  const url = URL_TEXT.check(`${where}.url`, value.url);
  if (!BATCH_ENDPOINTS.includes(url))
    throw invalidOption(`${where}.url`, `one of ${BATCH_ENDPOINTS.join(", ")}`, url.slice(0, 256));
  if (endpoint !== null && url !== endpoint)
    throw invalidOption(`${where}.url`, `the batch's endpoint \`${endpoint}\``, url);
  return { index, customId, method: "POST", url, body: jsonOf(`${where}.body`, value.body) };
}

/** A copy of a body through JSON, so that what is stored is what will be sent (no cycle, no BigInt). */
function jsonOf(field: string, body: unknown): unknown {
  if (body === undefined || body === null) return null;
  try {
    return JSON.parse(JSON.stringify(body)) as unknown;
  } catch (error) {
    throw invalidOption(field, "a JSON value", `[${(error as Error).name}]`);
  }
}

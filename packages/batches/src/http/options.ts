import type { Scheduler } from "@llm-scheduler/core";
import { custom, func, type InferShape, integer, invalidOption, resolveShape } from "@llm-scheduler/core/kit";

/** Who a request belongs to; `undefined` refuses it (401). */
export type TenantOf = (request: Request) => string | undefined | Promise<string | undefined>;

/** The scheduler priority of a batch created over HTTP, from the request and its tenant. */
export type PriorityOf = (request: Request, tenant: string) => string | Promise<string>;

/** Options of the HTTP layer ({@link batchesHandler}, or the same keys given to `createBatches`), declared once. */
export const BATCHES_HTTP = {
  tenant: func<TenantOf>({
    shownDefault: "none: HTTP closed",
    doc: "who a `Request` belongs to (e.g. `bearerKeyTenant`); `undefined` answers 401, and without it every request is a 401 (see Security)",
  }),
  httpPriority: custom<string | PriorityOf>({
    check: (path, value) => {
      if (typeof value === "function" || (typeof value === "string" && value.length > 0)) {
        return value as string | PriorityOf;
      }
      throw invalidOption(path, "a configured priority or a function", value);
    },
    range: "a configured priority, or `(request, tenant) => priority`",
    json: { type: "string", minLength: 1 },
    shownDefault: '`"batch"`',
    doc: "the priority of batches created with `POST /v1/batches` (a function's unknown answer or throw is a 500, told to `onError`)",
  }),
  maxFileBytes: integer(1, 2 ** 40, {
    default: 209_715_200,
    shownDefault: "200 MB",
    doc: "the largest input file accepted, in bytes (413 above it)",
  }),
  maxLineBytes: integer(64, 2 ** 30, {
    default: 10_485_760,
    shownDefault: "10 MB",
    doc: "the longest line of an input file, in bytes (400 above it)",
  }),
  maxBodyBytes: integer(1_024, 67_108_864, {
    default: 1_048_576,
    shownDefault: "1 MB",
    doc: "the largest JSON body (`POST /v1/batches`), checked on the declared length and counted as it is read (413)",
  }),
};

/** Options of the HTTP layer ({@link batchesHandler}, or the same keys given to `createBatches`). */
export type BatchesHttpOptions = InferShape<typeof BATCHES_HTTP>;

/** The HTTP options after defaults and validation (`tenant` undefined: every request is refused). */
export type ResolvedHttpOptions = ReturnType<typeof resolveHttpOptions>;

function priorityOf(given: BatchesHttpOptions["httpPriority"], scheduler: Scheduler | undefined): PriorityOf {
  if (typeof given === "function") return given;
  // an invalid scheduler is the batch layer's error to report, not this one's
  const configured = scheduler?.options?.priorities;
  const known = Array.isArray(configured) ? configured.map((p) => p.name) : undefined;
  if (given !== undefined && known !== undefined && !known.includes(given))
    throw invalidOption("httpPriority", `a configured priority (${known.join(", ")}) or a function`, given);
  const priority = given ?? "batch";
  return () => priority;
}

/**
 * Validates the HTTP options up front (`INVALID_OPTION` naming the field) and fills in the defaults; a
 * string `httpPriority` must be one of the scheduler's priorities.
 *
 * @example
 * resolveHttpOptions({ maxBodyBytes: 10 }, scheduler); // throws: Expected `maxBodyBytes` to be an integer from 1024 to 67108864, got `10` (number)
 */
export function resolveHttpOptions(
  options: BatchesHttpOptions | undefined,
  scheduler: Scheduler | undefined,
) {
  const resolved = resolveShape(BATCHES_HTTP, options);
  return { ...resolved, httpPriority: priorityOf(resolved.httpPriority, scheduler) };
}

import type { Scheduler } from "@llm-scheduler/core";
import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";

/** Who a request belongs to; `undefined` refuses it (401). */
export type TenantOf = (request: Request) => string | undefined | Promise<string | undefined>;

/** The scheduler priority of a batch created over HTTP, from the request and its tenant. */
export type PriorityOf = (request: Request, tenant: string) => string | Promise<string>;

/** Options of the HTTP layer ({@link batchesHandler}, or the same keys given to `createBatches`). */
export interface BatchesHttpOptions {
  /**
   * Who a request belongs to (e.g. from its API key, or {@link bearerKeyTenant}); a tenant sees only
   * its own files and batches, and its batches run as that scheduler tenant. `undefined` refuses the
   * request (401). Without it the handler serves nobody (every request 401, `onError` told why);
   * `tenant: () => "default"` opens the API to every caller as one tenant, on purpose.
   * @default none: the HTTP routes are closed
   */
  readonly tenant?: TenantOf;
  /**
   * The scheduler priority of batches created with `POST /v1/batches`: one configured priority, or a
   * function of the request and its tenant (e.g. `(req, tenant) => tenant === "eval-team" ? "batch" :
   * "bulk"`); a function that throws or answers an unknown priority makes that request a 500 and goes
   * to `onError`.
   * @default "batch"
   */
  readonly httpPriority?: string | PriorityOf;
  /**
   * The largest input file accepted, in bytes (OpenAI's limit).
   * @default 209_715_200 (200 MB)
   */
  readonly maxFileBytes?: number;
  /**
   * The longest line of an input file, in bytes.
   * @default 10_485_760 (10 MB)
   */
  readonly maxLineBytes?: number;
  /**
   * The largest JSON body (`POST /v1/batches`), checked on the declared length and counted as it is
   * read (413).
   * @default 1_048_576 (1 MB)
   */
  readonly maxBodyBytes?: number;
}

/** The HTTP options after defaults and validation. */
export interface ResolvedHttpOptions {
  /** `undefined`: no identity configured, every request is refused. */
  readonly tenant: TenantOf | undefined;
  readonly httpPriority: PriorityOf;
  readonly maxFileBytes: number;
  readonly maxLineBytes: number;
  readonly maxBodyBytes: number;
}

/** The keys of {@link BatchesHttpOptions}, to split them from the batch layer's own. */
export const HTTP_KEYS = ["tenant", "httpPriority", "maxFileBytes", "maxLineBytes", "maxBodyBytes"] as const;

function priorityOf(given: BatchesHttpOptions["httpPriority"], scheduler: Scheduler | undefined): PriorityOf {
  if (typeof given === "function") return given;
  const priority = given ?? "batch";
  // an invalid scheduler is the batch layer's error to report, not this one's
  const configured = scheduler?.options?.priorities;
  if (given !== undefined && Array.isArray(configured)) {
    const known = configured.map((p) => p.name);
    if (!known.includes(priority)) {
      throw invalidOption(
        "httpPriority",
        `a configured priority (${known.join(", ")}) or a function`,
        priority,
      );
    }
  }
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
): ResolvedHttpOptions {
  const given = options ?? {};
  if (given === null || typeof given !== "object") throw invalidOption("options", "an object", given);
  rejectUnknownKeys("", given, HTTP_KEYS);
  if (given.tenant !== undefined && typeof given.tenant !== "function") {
    throw invalidOption("tenant", "a function", given.tenant);
  }
  return {
    tenant: given.tenant,
    httpPriority: priorityOf(given.httpPriority, scheduler),
    maxFileBytes: integerIn("maxFileBytes", given.maxFileBytes, 1, 2 ** 40, 209_715_200),
    maxLineBytes: integerIn("maxLineBytes", given.maxLineBytes, 64, 2 ** 30, 10_485_760),
    maxBodyBytes: integerIn("maxBodyBytes", given.maxBodyBytes, 1_024, 67_108_864, 1_048_576),
  };
}

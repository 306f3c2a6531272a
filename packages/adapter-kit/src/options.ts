import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { type HeaderReader, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { estimateTokens, estimateTokensFromLength } from "./tokens.js";

/** A value, or a promise of it: every mapping function may be synchronous or asynchronous. */
export type Awaitable<T> = T | PromiseLike<T>;

/**
 * The options every adapter takes. `R` is what the framework hands a middleware: Express's `req`,
 * Koa's `ctx`, Hono's `c`. Each adapter adds its own `onRejected`.
 */
export interface AdapterOptions<R> {
  /**
   * The scheduler that decides when requests run. Share one instance between routes (and with
   * `scheduler.metrics()` for dashboards) by passing it here.
   * @default a new `createScheduler()` for this middleware
   */
  readonly scheduler?: Scheduler;
  /**
   * The request's priority, from something the operator trusts (API key, route). Without it a client may
   * only lower its own priority with an `x-priority` header; an unknown value is answered with 400.
   * @default `lowerOnlyPriority(scheduler.options, x-priority header)`
   */
  readonly priority?: (request: R) => Awaitable<string>;
  /**
   * Who the request belongs to (API key, team); tenants take turns within a priority.
   * @default the scheduler's `defaultTenant` ("default")
   */
  readonly tenant?: (request: R) => Awaitable<string>;
  /**
   * The request id shown in events and errors; a rejected id that comes back counts as a retry.
   * @default the `x-request-id` header when usable, otherwise the scheduler numbers the request
   */
  readonly id?: (request: R) => Awaitable<string>;
  /**
   * Units of the scheduler's `maxConcurrency` the request takes (e.g. estimated tokens / 1000).
   * @default 1
   */
  readonly cost?: (request: R) => Awaitable<number>;
  /**
   * The request's estimated tokens (charged against the tenant's `tokensPerMinute` and the scheduler's
   * `maxTokensInFlight`, counted by `fairness: "tokens"`).
   * @default an estimate from the OpenAI-style JSON body, where the adapter can see it without consuming
   * it: prompt characters / 4, plus `max_tokens` or `max_completion_tokens`, or `defaultMaxTokens`; for a
   * body it cannot see, `content-length` / 4 plus `defaultMaxTokens` (charged up front, corrected from
   * the answer's `usage`); made only while the scheduler counts tokens (`fairness: "tokens"`,
   * `maxTokensInFlight` or a `tokensPerMinute` bucket), like the reading of the answer's `usage`
   */
  readonly tokens?: (request: R) => Awaitable<number>;
  /**
   * The output tokens the estimate assumes when a body sets no `max_tokens` (or
   * `max_completion_tokens`), or when the adapter cannot read the body: an integer from 0 to 1,000,000.
   * @default 1_024
   */
  readonly defaultMaxTokens?: number;
  /**
   * Run timeout in milliseconds: after this long holding a slot, the request's signal aborts with
   * `RUN_TIMEOUT` so the handler can cancel its upstream call.
   * @default Infinity
   */
  readonly timeoutMs?: number;
}

/** Adapter options after defaults and validation. */
export interface ResolvedAdapterOptions<R, H> {
  readonly scheduler: Scheduler;
  readonly priority: ((request: R) => Awaitable<string>) | undefined;
  readonly tenant: ((request: R) => Awaitable<string>) | undefined;
  readonly id: ((request: R) => Awaitable<string>) | undefined;
  readonly cost: ((request: R) => Awaitable<number>) | undefined;
  /**
   * The user's `tokens`, or the estimate from the body the adapter reads (from the declared length when
   * it reads none); undefined for neither.
   */
  readonly tokens: ((request: R, header: HeaderReader) => Awaitable<number>) | undefined;
  /** True when `tokens` is the adapter's estimate (run only while the scheduler counts tokens). */
  readonly tokensEstimated: boolean;
  readonly timeoutMs: number | undefined;
  readonly onRejected: H | undefined;
}

const KNOWN = [
  "scheduler",
  "priority",
  "tenant",
  "id",
  "cost",
  "tokens",
  "defaultMaxTokens",
  "timeoutMs",
  "onRejected",
] as const;
const FUNCTIONS = ["priority", "tenant", "id", "cost", "tokens", "onRejected"] as const;

/** How an adapter reads a request's parsed JSON body without consuming it (undefined when it cannot). */
export type BodyReader<R> = (request: R) => Awaitable<unknown>;

/**
 * The estimate for one request: from its parsed JSON body when there is one, otherwise from the length
 * its headers declare, so that a body streamed through unread is charged up front all the same.
 */
function estimateOf(body: unknown, header: HeaderReader, cap: number): number {
  if (body !== null && typeof body === "object" && !Array.isArray(body)) return estimateTokens(body, cap);
  return estimateTokensFromLength(header("content-length"), header("transfer-encoding"), cap);
}

/** The `tokens` mapping: the user's, or an estimate from the body that `bodyOf` reads. */
function tokensMapping<R>(
  given: ((request: R) => Awaitable<number>) | undefined,
  defaultMaxTokens: unknown,
  bodyOf: BodyReader<R> | undefined,
): ((request: R, header: HeaderReader) => Awaitable<number>) | undefined {
  const cap = defaultMaxTokens ?? 1_024;
  if (typeof cap !== "number" || !Number.isInteger(cap) || cap < 0 || cap > 1_000_000) {
    throw invalidOption("defaultMaxTokens", "an integer from 0 to 1000000", cap);
  }
  if (given !== undefined || bodyOf === undefined) return given;
  return (request, header) => {
    const body = bodyOf(request);
    return isPromiseLike(body)
      ? Promise.resolve(body).then((parsed) => estimateOf(parsed, header, cap))
      : estimateOf(body, header, cap);
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}

function isScheduler(value: unknown): value is Scheduler {
  const candidate = value as Partial<Scheduler> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.acquire === "function" &&
    typeof candidate.options === "object"
  );
}

/**
 * Validates an adapter's options up front (`bodyOf`, the adapter's way to read a parsed JSON body, is
 * what the default `tokens` estimate reads) (unknown keys included, so a typo fails at start-up rather
 * than silently doing nothing) and fills in the defaults. Throws a `SchedulerError` with code
 * `INVALID_OPTION` naming the field.
 *
 * @example
 * const config = resolveAdapterOptions<Request, OnRejected>(options);
 */
export function resolveAdapterOptions<R, H>(
  options: (AdapterOptions<R> & { readonly onRejected?: H }) | undefined = {},
  bodyOf?: BodyReader<R>,
): ResolvedAdapterOptions<R, H> {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw invalidOption("options", "an object", options);
  }
  rejectUnknownKeys("", options, KNOWN);
  for (const key of FUNCTIONS) {
    const value: unknown = options[key];
    if (value !== undefined && typeof value !== "function") throw invalidOption(key, "a function", value);
  }
  const { scheduler, timeoutMs } = options;
  if (scheduler !== undefined && !isScheduler(scheduler)) {
    throw invalidOption("scheduler", "a scheduler made by createScheduler()", scheduler);
  }
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== "number" || Number.isNaN(timeoutMs) || timeoutMs <= 0)
  ) {
    throw invalidOption("timeoutMs", "a positive number of milliseconds or Infinity", timeoutMs);
  }
  return {
    scheduler: scheduler ?? createScheduler(),
    priority: options.priority,
    tenant: options.tenant,
    id: options.id,
    cost: options.cost,
    tokens: tokensMapping(options.tokens, options.defaultMaxTokens, bodyOf),
    tokensEstimated: options.tokens === undefined && bodyOf !== undefined,
    timeoutMs,
    onRejected: options.onRejected,
  };
}

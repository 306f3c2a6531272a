import { createScheduler, type Scheduler, type SchedulerError } from "@llm-scheduler/core";
import {
  custom,
  func,
  type HeaderReader,
  type InferShape,
  integer,
  invalidOption,
  methods,
  resolveShape,
} from "@llm-scheduler/core/kit";
import { isThenable } from "./slot.js";
import { estimateRequestTokens } from "./tokens.js";

/** A value, or a promise of it: every mapping function may be synchronous or asynchronous. */
export type Awaitable<T> = T | PromiseLike<T>;

/**
 * The options every adapter takes, declared once: `R` is what the framework hands a middleware (Express's
 * `req`, Koa's `ctx`, Hono's `c`), `H` the adapter's rejection handler. The README tables, the checks
 * and the types come from here.
 */
export function adapterSchema<R, H>() {
  return {
    scheduler: methods<Scheduler>(["acquire"], {
      range: "a scheduler made by createScheduler()",
      shownRange: "a `createScheduler()` instance",
      shownDefault: "a new `createScheduler()`",
      doc: "the scheduler that decides when requests run; share one between routes (and with the dashboard)",
    }),
    priority: func<(request: R) => Awaitable<string>>({
      shownDefault: "the default priority, lowered (never raised) by `x-priority`",
      doc: "the request's priority, from something you trust (API key, route); an unknown one is answered with 400",
    }),
    tenant: func<(request: R) => Awaitable<string>>({
      shownDefault: "the scheduler's `defaultTenant`",
      doc: "who the request belongs to (API key, team); tenants take turns within a priority",
    }),
    id: func<(request: R) => Awaitable<string>>({
      shownDefault: "`x-request-id` when usable, else a sequence number",
      doc: "the request id shown in events and errors; a rejected id that comes back counts as a retry",
    }),
    cost: func<(request: R) => Awaitable<number>>({
      shownDefault: "1",
      doc: "units of the scheduler's `maxConcurrency` the request takes",
    }),
    tokens: func<(request: R) => Awaitable<number>>({
      shownDefault: "estimated from the JSON body (see Tokens)",
      doc: "the request's estimated tokens, charged against `tokensPerMinute` and `maxTokensInFlight`",
    }),
    defaultMaxTokens: integer(0, 1_000_000, {
      default: 1_024,
      doc: "output tokens the estimate assumes when the body sets no `max_tokens` or is not read",
    }),
    timeoutMs: custom<number>({
      check: (path, value) => {
        if (typeof value === "number" && value > 0) return value;
        throw invalidOption(path, "a positive number of milliseconds or Infinity", value);
      },
      range: "a positive number of milliseconds or Infinity",
      json: { type: "number", exclusiveMinimum: 0 },
      shownDefault: "none",
      doc: "run timeout: after this long holding a slot the request's signal aborts with `RUN_TIMEOUT`",
    }),
    onRejected: func<H>({
      shownDefault: "the JSON error below",
      doc: "answers a rejected request in place of the default JSON error",
    }),
  };
}

/**
 * The options of an adapter (see {@link adapterSchema}): `R` is the request its mappings receive, `H` its
 * rejection handler. Every field is optional.
 */
export type AdapterOptions<R, H = never> = InferShape<ReturnType<typeof adapterSchema<R, H>>>;

/** Adapter options after defaults and validation. */
export type ResolvedAdapterOptions<R, H> = ReturnType<typeof resolveAdapterOptions<R, H>>;

/**
 * Answers a rejected request in place of the default JSON error, given what the adapter hands it (`A`):
 * `error.code` says why (`QUEUE_FULL`, `QUEUE_TIMEOUT`, `CLOSED`, `INVALID_PRIORITY`, …) and
 * `error.retryAfterMs` when to come back.
 */
export type RejectionHandler<A extends unknown[], T = void> = (
  error: SchedulerError,
  ...args: A
) => Awaitable<T>;

/**
 * The shapes of an adapter by name (`middleware`, and `scheduled` for `scheduled(app)`): what each hands
 * its mapping functions (`request`) and its `onRejected`. One options type serves them all.
 */
export type AdapterShapes = {
  readonly [shape: string]: { readonly request: unknown; readonly onRejected: unknown };
};

/** The options of shape `S` of an adapter whose shapes are `T`. */
export type ShapeOptions<T extends AdapterShapes, S extends keyof T> = AdapterOptions<
  T[S]["request"],
  T[S]["onRejected"]
>;

/** How an adapter reads a request's parsed JSON body without consuming it (undefined when it cannot). */
export type BodyReader<R> = (request: R) => Awaitable<unknown>;

/** The default `tokens`: {@link estimateRequestTokens} from the body that `bodyOf` reads. */
function estimator<R>(bodyOf: BodyReader<R>, cap: number) {
  return (request: R, header: HeaderReader): Awaitable<number> => {
    const body = bodyOf(request);
    return isThenable(body)
      ? Promise.resolve(body).then((parsed) => estimateRequestTokens(parsed, header, cap))
      : estimateRequestTokens(body, header, cap);
  };
}

/**
 * Validates an adapter's options up front (unknown keys included, so a typo fails at start-up rather
 * than silently doing nothing) and fills in the defaults; `bodyOf`, the adapter's way to read a parsed
 * JSON body, is what the default `tokens` estimate reads. Throws a `SchedulerError` with code
 * `INVALID_OPTION` naming the field.
 *
 * @example
 * const config = resolveAdapterOptions<Request, OnRejected>(options);
 */
export function resolveAdapterOptions<R, H>(options?: AdapterOptions<R, H>, bodyOf?: BodyReader<R>) {
  const { defaultMaxTokens, tokens, scheduler, ...rest } = resolveShape(adapterSchema<R, H>(), options);
  const estimated = tokens === undefined && bodyOf !== undefined;
  return {
    ...rest,
    scheduler: scheduler ?? createScheduler(),
    /**
     * The user's `tokens`, or the estimate from the body the adapter reads (from the declared length when
     * it reads none); undefined for neither.
     */
    tokens: estimated ? estimator(bodyOf, defaultMaxTokens) : tokens,
    /** True when `tokens` is the adapter's estimate (run only while the scheduler counts tokens). */
    tokensEstimated: estimated,
  };
}

/**
 * The resolver of an adapter's options for any of its shapes (`"middleware"` when none is named), from
 * what each shape's token estimate reads (`bodyOf`); see {@link resolveAdapterOptions}.
 *
 * @example
 * const resolve = adapterResolver<ExpressShapes>({ middleware: (r) => r.body, scheduled: () => undefined });
 * const config = resolve(options, "scheduled"); // estimates from the declared length: it reads no body
 */
export function adapterResolver<T extends AdapterShapes>(
  bodyOf: {
    readonly [S in keyof T]: BodyReader<T[S]["request"]>;
  },
) {
  return <S extends keyof T = "middleware">(options?: ShapeOptions<T, S>, shape = "middleware" as S) =>
    resolveAdapterOptions<T[S]["request"], T[S]["onRejected"]>(options, bodyOf[shape]);
}

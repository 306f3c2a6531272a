import type { Permit, Scheduler, TokenUsage } from "@llm-scheduler/core";
import {
  givenRequestId,
  HeaderNames,
  type HeaderReader,
  isRetryRequest,
  KnownTaskOptions,
  lowerOnlyPriority,
} from "@llm-scheduler/core/kit";
import type { ResolvedAdapterOptions } from "./options.js";
import { countsTokens } from "./token-accounting.js";
import { joinOf } from "./within.js";

/**
 * What a scheduled request's handler can read (Express `req.llmScheduler`, Koa `ctx.state.llmScheduler`,
 * Hono `c.get("llmScheduler")`).
 */
export interface RequestSlot {
  /**
   * Aborts when the client goes away, when the run timeout (`timeoutMs`) passes, and when the scheduler
   * closes. Pass it to the upstream `fetch` so that the upstream work really stops.
   */
  readonly signal: AbortSignal;
  /** The permit held for this request; the middleware releases it once the response has been sent. */
  readonly permit: Permit;
  readonly priority: string;
  readonly tenant: string;
  readonly id: string;
  /** How long the request waited in the queue, in milliseconds. */
  readonly waitMs: number;
  /**
   * Tells the scheduler the tokens the request really used (corrects the tenant's bucket and fairness
   * counter). The adapters call it themselves from a JSON or SSE answer's `usage`; the first report counts.
   */
  reportUsage(usage: TokenUsage): void;
}

/** The request's slot, read through to the permit so nothing is made that the handler does not read. */
class Slot implements RequestSlot {
  readonly permit: Permit;

  constructor(permit: Permit) {
    this.permit = permit;
  }

  get signal(): AbortSignal {
    return this.permit.signal;
  }

  get priority(): string {
    return this.permit.priority;
  }

  get tenant(): string {
    return this.permit.tenant;
  }

  get id(): string {
    return this.permit.id;
  }

  get waitMs(): number {
    return this.permit.waitMs;
  }

  reportUsage(usage: TokenUsage): void {
    this.permit.reportUsage(usage);
  }
}

const toSlot = (permit: Permit): RequestSlot => new Slot(permit);

/** True when `value` is a promise (or any thenable) to wait for. */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === "function";
}

/**
 * The task options for one request. A plain object when every mapping answered synchronously (no extra
 * promise or tick on the common path); otherwise a promise, with every mapping started before any is
 * awaited so that asynchronous ones run side by side.
 */
function taskOptionsFor<R, H>(
  config: ResolvedAdapterOptions<R, H>,
  request: R,
  header: HeaderReader,
): KnownTaskOptions | Promise<KnownTaskOptions> {
  const priority = config.priority === undefined ? headerPriority(config, header) : config.priority(request);
  const tenant = config.tenant?.(request);
  const id = config.id === undefined ? givenRequestId(header) : config.id(request);
  const cost = config.cost?.(request);
  const tokens = estimating(config) ? config.tokens?.(request, header) : undefined;
  const { timeoutMs } = config;
  const claimedRetry = isRetryRequest(header);
  if (
    !isThenable(priority) &&
    !isThenable(tenant) &&
    !isThenable(id) &&
    !isThenable(cost) &&
    !isThenable(tokens)
  ) {
    return new KnownTaskOptions({ priority, tenant, id, cost, tokens, timeoutMs, claimedRetry });
  }
  return Promise.all([priority, tenant, id, cost, tokens]).then(
    ([priority, tenant, id, cost, tokens]) =>
      new KnownTaskOptions({ priority, tenant, id, cost, tokens, timeoutMs, claimedRetry }),
  );
}

/**
 * The priority a request asks for with `x-priority` (lowered only, see `lowerOnlyPriority`); undefined
 * without the header, so that admission takes the default priority without a second lookup.
 */
function headerPriority<R, H>(
  config: ResolvedAdapterOptions<R, H>,
  header: HeaderReader,
): string | undefined {
  const requested = header(HeaderNames.priority);
  if (requested === null || requested === undefined) return undefined;
  return lowerOnlyPriority(config.scheduler.options, requested);
}

/** True unless `tokens` is the adapter's own estimate and the scheduler counts no tokens. */
function estimating<R, H>(config: ResolvedAdapterOptions<R, H>): boolean {
  return !config.tokensEstimated || countsTokens(config.scheduler);
}

/** Where the client's abort signal is read from, only when the request has to wait (`ResponseWatch`, `Request`). */
export interface ClientSignalSource {
  readonly signal: AbortSignal;
}

/**
 * Maps one request to the scheduler's terms (priority, tenant, id, cost, retry) and gets it a permit:
 * synchronously when a slot is free and nothing waits (no promise, and `client.signal` is never read,
 * so a lazy one makes no `AbortController`), otherwise by waiting in the queue with the client's
 * signal, so a client that leaves is dropped from the queue at once. A scheduler that offers `join`
 * (see `JOIN`) gets the request its slot inside the client's trace. Rejects with a `SchedulerError`
 * (queue full, closed, unknown priority, client gone while queued) or with whatever a mapping
 * function threw.
 *
 * @example
 * const slot = await acquireSlot(config, req, nodeHeaderReader(req.headers), watch);
 */
export function acquireSlot<R, H>(
  config: ResolvedAdapterOptions<R, H>,
  request: R,
  header: HeaderReader,
  client: ClientSignalSource,
): RequestSlot | Promise<RequestSlot> {
  const join = joinOf(config.scheduler); // a traced scheduler joins the client's trace first
  if (join === undefined) return slotFor(config, request, header, client);
  return join(header, () => slotFor(config, request, header, client));
}

function slotFor<R, H>(
  config: ResolvedAdapterOptions<R, H>,
  request: R,
  header: HeaderReader,
  client: ClientSignalSource,
): RequestSlot | Promise<RequestSlot> {
  const { scheduler } = config;
  try {
    const options = taskOptionsFor(config, request, header);
    if (isThenable(options)) return options.then((resolved) => queue(scheduler, resolved, client));
    const permit = scheduler.tryAcquire(options);
    return permit === undefined ? queue(scheduler, options, client) : new Slot(permit);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Waits in the queue with the client's signal (read only now: the fast path never needs it). */
function queue(
  scheduler: Scheduler,
  options: KnownTaskOptions,
  client: ClientSignalSource,
): Promise<RequestSlot> {
  return scheduler.acquire(options.withSignal(client.signal)).then(toSlot);
}

type NodeHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Reads request headers straight from Node's parsed `req.headers` (names in lower case, as core asks
 * for them), taking the first value of a repeated one; no framework accessor or `Headers` object.
 *
 * @example
 * const slot = acquireSlot(config, req, nodeHeaderReader(req.headers), () => watch.signal);
 */
export function nodeHeaderReader(headers: NodeHeaders): HeaderReader {
  return (name) => {
    const value = headers[name];
    return typeof value === "string" ? value : value?.[0];
  };
}

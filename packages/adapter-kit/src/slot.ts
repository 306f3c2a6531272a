import {
  type HeaderReader,
  Headers,
  isRetryRequest,
  lowerOnlyPriority,
  type Permit,
  requestIdOf,
  type TaskOptions,
} from "@llm-scheduler/core";
import type { ResolvedAdapterOptions } from "./options.js";

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
}

const toSlot = (permit: Permit): RequestSlot => new Slot(permit);

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
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
  signal: AbortSignal,
): TaskOptions | Promise<TaskOptions> {
  const priority =
    config.priority === undefined
      ? lowerOnlyPriority(config.scheduler.options, header(Headers.priority))
      : config.priority(request);
  const tenant = config.tenant?.(request);
  const id = config.id === undefined ? requestIdOf(header) : config.id(request);
  const cost = config.cost?.(request);
  const { timeoutMs } = config;
  const retry = isRetryRequest(header);
  if (!isThenable(priority) && !isThenable(tenant) && !isThenable(id) && !isThenable(cost)) {
    return { priority, tenant, id, cost, signal, timeoutMs, retry };
  }
  return Promise.all([priority, tenant, id, cost]).then(([p, t, i, c]) => ({
    priority: p,
    tenant: t,
    id: i,
    cost: c,
    signal,
    timeoutMs,
    retry,
  }));
}

/**
 * Maps one request to the scheduler's terms (priority, tenant, id, cost, retry) and waits for a permit.
 * Rejects with a `SchedulerError` (queue full, closed, unknown priority, client gone while queued) or
 * with whatever a mapping function threw.
 *
 * @example
 * const slot = await acquireSlot(config, req, (name) => req.get(name), clientGone);
 */
export function acquireSlot<R, H>(
  config: ResolvedAdapterOptions<R, H>,
  request: R,
  header: HeaderReader,
  signal: AbortSignal,
): Promise<RequestSlot> {
  const { scheduler } = config;
  let options: TaskOptions | Promise<TaskOptions>;
  try {
    options = taskOptionsFor(config, request, header, signal);
  } catch (error) {
    return Promise.reject(error);
  }
  const permit = isThenable(options)
    ? options.then((ready) => scheduler.acquire(ready))
    : scheduler.acquire(options);
  return permit.then(toSlot);
}

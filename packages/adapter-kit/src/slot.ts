import {
  type HeaderReader,
  Headers,
  isRetryRequest,
  lowerOnlyPriority,
  type Permit,
  requestIdOf,
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

interface Plan {
  readonly priority: string;
  readonly tenant: string | undefined;
  readonly id: string;
  readonly cost: number | undefined;
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === "function";
}

/** Runs the mapping functions; a plain value when all of them answered synchronously (no extra tick). */
function planFor<R, H>(
  config: ResolvedAdapterOptions<R, H>,
  request: R,
  header: HeaderReader,
): Plan | Promise<Plan> {
  const priority =
    config.priority === undefined
      ? lowerOnlyPriority(config.scheduler.options, header(Headers.priority))
      : config.priority(request);
  const tenant = config.tenant?.(request);
  const id = config.id === undefined ? requestIdOf(header) : config.id(request);
  const cost = config.cost?.(request);
  if (!isThenable(priority) && !isThenable(tenant) && !isThenable(id) && !isThenable(cost)) {
    return { priority, tenant, id, cost };
  }
  // Every mapping has started already, so asynchronous ones run side by side.
  return Promise.all([priority, tenant, id, cost]).then(([p, t, i, c]) => ({
    priority: p,
    tenant: t,
    id: i,
    cost: c,
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
  const { scheduler, timeoutMs } = config;
  const retry = isRetryRequest(header);
  const acquire = (plan: Plan) => scheduler.acquire({ ...plan, signal, timeoutMs, retry });
  let plan: Plan | Promise<Plan>;
  try {
    plan = planFor(config, request, header);
  } catch (error) {
    return Promise.reject(error);
  }
  const permit = isThenable(plan) ? plan.then(acquire) : acquire(plan);
  return permit.then(slotOf);
}

function slotOf(permit: Permit): RequestSlot {
  return {
    signal: permit.signal,
    permit,
    priority: permit.priority,
    tenant: permit.tenant,
    id: permit.id,
    waitMs: permit.waitMs,
  };
}

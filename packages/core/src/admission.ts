import { ErrorCode, SchedulerError } from "./errors.js";
import type { ResolvedOptions, ResolvedPriority } from "./options.js";
import type { PriorityStats } from "./stats.js";
import { duration, invalidOption } from "./validate.js";

/** Per-call options of `run()` and `acquire()`. */
export interface TaskOptions {
  /** A configured priority name. @default the scheduler's `defaultPriority` */
  readonly priority?: string;
  /** Who the task belongs to (API key, team); tenants take turns within a priority. @default "default" */
  readonly tenant?: string;
  /** Your id for the task (a request id); shows in events and errors, and marks retries. */
  readonly id?: string;
  /** Aborting it removes a queued task at once (`ABORTED`) or aborts a running task's signal. */
  readonly signal?: AbortSignal;
  /** Run timeout: the task's signal fires and the caller gets `RUN_TIMEOUT` after this long running. */
  readonly timeoutMs?: number;
  /** Units of `maxConcurrency` the task takes (e.g. estimated tokens / 1000). @default 1 */
  readonly cost?: number;
  /** A retry of a request that failed before: queued at the front of its tenant's queue. @default false */
  readonly retry?: boolean;
}

/** Per-call options after validation. */
export interface Admitted {
  readonly priority: ResolvedPriority;
  readonly tenant: string;
  readonly cost: number;
  readonly timeoutMs: number;
  readonly id: string | undefined;
}

/** Validates one call's options against the configuration; throws a typed error naming the field. */
export function admit(options: TaskOptions, config: ResolvedOptions): Admitted {
  const name = options.priority ?? config.defaultPriority;
  let priority = config.priorityByName.get(name);
  if (priority === undefined) {
    if (config.unknownPriority === "reject" || typeof name !== "string") {
      const known = config.priorities.map((p) => `"${p.name}"`).join(", ");
      throw new SchedulerError(
        ErrorCode.INVALID_PRIORITY,
        `Unknown priority "${String(name)}"; expected one of ${known}`,
        {
          id: options.id,
        },
      );
    }
    priority = config.priorityByName.get(config.defaultPriority)!;
  }
  const tenant = options.tenant ?? config.defaultTenant;
  if (typeof tenant !== "string" || tenant.length === 0 || tenant.length > 256) {
    throw invalidOption("tenant", "a non-empty string of at most 256 characters", tenant);
  }
  const cost = options.cost ?? 1;
  if (!Number.isInteger(cost) || cost < 1 || cost > priority.maxConcurrency) {
    throw invalidOption(
      "cost",
      `an integer from 1 to ${priority.maxConcurrency} (the priority's maxConcurrency)`,
      cost,
    );
  }
  const timeoutMs = duration("timeoutMs", options.timeoutMs ?? Number.POSITIVE_INFINITY);
  const id = options.id;
  if (id !== undefined && (typeof id !== "string" || id.length > 256)) {
    throw invalidOption("id", "a string of at most 256 characters", id);
  }
  return { priority, tenant, cost, timeoutMs, id };
}

const FALLBACK_RETRY_MS = 1_000;
const MIN_RETRY_MS = 100;

/**
 * How long a refused caller should wait: the time the priority's queue takes to drain at its measured
 * start rate (so that a retry finds room and can be served within the queue timeout), bounded by the
 * queue timeout; one second while nothing has started yet.
 */
export function retryAfterMs(
  priority: ResolvedPriority,
  stats: PriorityStats,
  queued: number,
  now: number,
): number {
  const estimate = stats.drain.timeFor(queued + 1, now) ?? FALLBACK_RETRY_MS;
  const ceiling = Math.min(priority.queueTimeoutMs, 600_000);
  return Math.round(Math.max(MIN_RETRY_MS, Math.min(estimate, ceiling)));
}

import { ErrorCode, SchedulerError } from "./errors.js";
import { isKnownShape } from "./known-options.js";
import type { ResolvedOptions } from "./options.js";
import { UNLIMITED_TENANT } from "./resolve-options.js";
import { shortKey } from "./short-key.js";
import type { ResolvedPriority } from "./store.js";
import { CallExtras, type Task } from "./task.js";
import { TASK, type TaskOptions } from "./task-option-schema.js";
import { invalidOption, rejectUnknownKeys } from "./validate.js";

export type { TaskOptions } from "./task-option-schema.js";

/** The keys `TaskOptions` declares (see task-option-schema.ts), for the per-call key check. */
const TASK_KEYS = Object.keys(TASK);
const TASK_KEY_SET: ReadonlySet<string> = new Set(TASK_KEYS);

/** Throws `INVALID_OPTION` for a key `TaskOptions` does not have (no allocation when all are known). */
function checkKeys(options: TaskOptions): void {
  if (isKnownShape(options)) return; // an adapter's options: known keys by construction
  for (const key in options) {
    if (!TASK_KEY_SET.has(key)) rejectUnknownKeys("", options, TASK_KEYS);
  }
}

/** True for an `AbortSignal` of this or another realm (checked by shape, as `instanceof` misses those). */
function isAbortSignal(value: unknown): value is AbortSignal {
  const signal = value as Partial<AbortSignal> | null;
  return (
    typeof signal === "object" &&
    signal !== null &&
    typeof signal.aborted === "boolean" &&
    typeof signal.addEventListener === "function" &&
    typeof signal.removeEventListener === "function"
  );
}

function priorityOf(options: TaskOptions, config: ResolvedOptions): ResolvedPriority {
  const name = options.priority ?? config.defaultPriority;
  const priority = config.priorityByName.get(name);
  if (priority !== undefined) return priority;
  if (typeof name !== "string") throw invalidOption("priority", "a string", name);
  if (config.unknownPriority === "reject") {
    const known = config.priorities.map((p) => `"${p.name}"`).join(", ");
    const shown = name.length > 64 ? "(a long name)" : `"${name}"`;
    throw new SchedulerError(
      ErrorCode.INVALID_PRIORITY,
      `Unknown priority ${shown}; expected one of ${known}`,
    );
  }
  return config.priorityByName.get(config.defaultPriority)!;
}

/** The tenant's `maxPriority` lowers a more urgent priority to it (configuration order), never raises. */
function lowered(priority: ResolvedPriority, tenant: string, config: ResolvedOptions): ResolvedPriority {
  const quotas = config.tenantQuotas;
  // Without named tenants (the common case) every tenant has the defaults: no lookup by name.
  const quota =
    (quotas.size === 0 ? undefined : quotas.get(tenant)) ?? config.tenantDefaults ?? UNLIMITED_TENANT;
  if (quota.maxPriority === undefined) return priority;
  const most = config.priorityByName.get(quota.maxPriority);
  return most !== undefined && most.index > priority.index ? most : priority;
}

/**
 * Validates one call's options against the configuration, field by field in a fixed order (the options
 * object and its keys, then `tenant`, `priority`, `tokens`, `cost`, `timeoutMs`, `id`, `signal`,
 * `retry`, `claimedRetry`), and throws a typed error naming the first bad one. In three steps, so that a
 * call with only a priority and a tenant allocates nothing on the way: {@link admitTenant},
 * {@link admitPriority}, {@link admitExtras}.
 *
 * @example
 * const tenant = admitTenant(options, config);
 * const priority = admitPriority(options, config, tenant);
 * const extras = admitExtras(options, priority, onAbort); // null for a plain call
 */
export function admitTenant(options: TaskOptions, config: ResolvedOptions): string {
  if (options === null || typeof options !== "object") throw invalidOption("options", "an object", options);
  checkKeys(options);
  const given = options.tenant;
  if (given !== undefined && (typeof given !== "string" || given.length === 0)) {
    throw invalidOption("tenant", "a non-empty string", given);
  }
  return given === undefined ? config.defaultTenant : shortKey(given);
}

/** The call's priority (see {@link admitTenant}), lowered to its tenant's `maxPriority`. */
export function admitPriority(
  options: TaskOptions,
  config: ResolvedOptions,
  tenant: string,
): ResolvedPriority {
  return lowered(priorityOf(options, config), tenant, config);
}

/**
 * The call's other settings, validated (see {@link admitTenant}): null when each is at its default,
 * as for most calls.
 */
export function admitExtras(
  options: TaskOptions,
  priority: ResolvedPriority,
  onAbort: (task: Task) => void,
): CallExtras | null {
  const { tokens: givenTokens, cost: givenCost, timeoutMs: givenTimeout, id: givenId } = options;
  const { signal: givenSignal, retry: givenRetry, claimedRetry: givenClaim } = options;
  // A plain call, every setting left out: nothing to check (what a check of each would find).
  if (
    givenTokens === undefined &&
    givenCost === undefined &&
    givenTimeout === undefined &&
    givenId === undefined &&
    givenSignal === undefined &&
    givenRetry === undefined &&
    givenClaim === undefined
  ) {
    return null;
  }
  const tokens = TASK.tokens.check("tokens", givenTokens ?? 0);
  const cost = givenCost ?? 1;
  if (!Number.isInteger(cost) || cost < 1 || cost > priority.maxConcurrency) {
    throw invalidOption(
      "cost",
      `an integer from 1 to ${priority.maxConcurrency} (the priority's maxConcurrency)`,
      cost,
    );
  }
  const timeoutMs = TASK.timeoutMs.check("timeoutMs", givenTimeout ?? Number.POSITIVE_INFINITY);
  if (givenId !== undefined && typeof givenId !== "string") throw invalidOption("id", "a string", givenId);
  const id = givenId === undefined ? undefined : shortKey(givenId);
  const signal = givenSignal ?? null;
  if (signal !== null && !isAbortSignal(signal)) throw invalidOption("signal", "an AbortSignal", signal);
  const retry = givenRetry !== undefined && TASK.retry.check("retry", givenRetry);
  const claimedRetry = givenClaim !== undefined && TASK.claimedRetry.check("claimedRetry", givenClaim);
  const plain =
    id === undefined &&
    signal === null &&
    timeoutMs === Number.POSITIVE_INFINITY &&
    cost === 1 &&
    tokens === 0 &&
    !retry &&
    !claimedRetry;
  return plain ? null : new CallExtras(id, signal, timeoutMs, cost, tokens, retry, claimedRetry, onAbort);
}

const FALLBACK_RETRY_MS = 1_000;
const MIN_RETRY_MS = 100;
const MAX_RETRY_MS = 600_000;
/** Retry hints are spread at random over +/- this share of the estimate, so refused clients do not return together. */
export const RETRY_JITTER = 0.2;

/**
 * How long a refused caller should wait: the time the priority's queue takes to drain at `perMs` starts
 * per millisecond (one second while nothing has started yet), at least 100 ms and at most the queue
 * timeout (and 10 minutes); for a `QUEUE_TIMEOUT`, whose caller already waited the whole queue timeout,
 * at most half of it. Then spread at random by +/-{@link RETRY_JITTER}, never past that ceiling.
 */
export function retryAfterMs(
  priority: ResolvedPriority,
  perMs: number | undefined,
  queued: number,
  code: ErrorCode,
): number {
  const estimate = perMs === undefined ? FALLBACK_RETRY_MS : (queued + 1) / perMs;
  let ceiling = Math.min(priority.queueTimeoutMs, MAX_RETRY_MS);
  if (code === ErrorCode.QUEUE_TIMEOUT) ceiling /= 2;
  const base = Math.min(ceiling, Math.max(Math.min(MIN_RETRY_MS, ceiling), estimate));
  const low = base * (1 - RETRY_JITTER);
  const high = Math.min(ceiling, base * (1 + RETRY_JITTER));
  return Math.max(1, Math.round(low + Math.random() * (high - low)));
}

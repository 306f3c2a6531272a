import { resolveLimit, withFloor } from "./adaptive/options.js";
import { resolveWaitTargets } from "./adaptive/wait-target-options.js";
import { systemClock } from "./clock.js";
import {
  defaultPriorities,
  MAX_TOKENS,
  PRIORITY_WEIGHT,
  type PriorityOptions,
  type ResolvedOptions,
  type SchedulerOptions,
  type SchedulerUpdate,
  type TenantOptions,
} from "./options.js";
import { resolvePreemption } from "./preemption-options.js";
import { shortKey } from "./short-key.js";
import type { ResolvedPriority, Store } from "./store.js";
import { resolveTenants } from "./tenant-options.js";
import {
  bound,
  definedOnly,
  duration,
  integerIn,
  invalidOption,
  MAX_CONCURRENCY,
  nonEmptyString,
  numberIn,
  plainObject,
  rejectUnknownKeys,
} from "./validate.js";

const OPTION_KEYS: readonly (keyof SchedulerOptions)[] = [
  "maxConcurrency",
  "adaptive",
  "priorities",
  "defaultPriority",
  "unknownPriority",
  "maxQueue",
  "defaultTenant",
  "tenants",
  "tenantDefaults",
  "maxTokensInFlight",
  "fairness",
  "outputTokenWeight",
  "abortGraceMs",
  "retryWindowMs",
  "retryMemory",
  "metricsTenantLimit",
  "waitTargets",
  "store",
  "clock",
];
/** Every key a priority's options may have (also for tools that read options from files). */
export const PRIORITY_KEYS: readonly (keyof PriorityOptions)[] = [
  "weight",
  "reserved",
  "maxConcurrency",
  "queueTimeoutMs",
  "maxQueue",
  "maxWaitMs",
  "preempts",
  "preemptible",
  "targetWaitMs",
];
const UPDATE_KEYS: readonly (keyof SchedulerUpdate)[] = [
  "maxConcurrency",
  "adaptive",
  "maxQueue",
  "priorities",
  "tenants",
  "tenantDefaults",
  "maxTokensInFlight",
  "fairness",
  "outputTokenWeight",
  "abortGraceMs",
  "waitTargets",
];

const CLOCK_METHODS = ["now", "setTimer", "clearTimer"] as const;
const STORE_METHODS = [
  "attach",
  "configure",
  "enqueue",
  "remove",
  "release",
  "removeAll",
  "depth",
  "snapshot",
  "detach",
] as const;

/** `value` when it is an object with every one of `names` as a method; `INVALID_OPTION` otherwise. */
function methods<T>(field: string, value: T, names: readonly string[]): T {
  const object = value as Record<string, unknown> | null;
  const missing = names.filter((name) => typeof object?.[name] !== "function");
  if (missing.length > 0) {
    throw invalidOption(
      field,
      `an object with the methods ${names.map((n) => `\`${n}\``).join(", ")}`,
      value,
    );
  }
  return value;
}

/**
 * Validates the `store` option (any object with the `Store` methods).
 *
 * @example
 * const store = checkedStore(options.store) ?? new MemoryStore();
 */
export function checkedStore(store: Store | undefined): Store | undefined {
  return store === undefined ? undefined : methods("store", store, STORE_METHODS);
}

function resolvePriority(
  name: string,
  index: number,
  raw: unknown,
  maxConcurrency: number,
): ResolvedPriority {
  const field = `priorities.${name}`;
  const object = plainObject(field, raw);
  rejectUnknownKeys(field, object, PRIORITY_KEYS);
  const given = definedOnly(object as PriorityOptions);
  const merged = {
    weight: 1,
    reserved: 0,
    maxConcurrency,
    queueTimeoutMs: 60_000,
    maxQueue: 10_000,
    maxWaitMs: Number.POSITIVE_INFINITY,
    ...given,
  };
  const priority: ResolvedPriority = {
    name,
    index,
    weight: numberIn(`${field}.weight`, merged.weight, PRIORITY_WEIGHT.min, PRIORITY_WEIGHT.max),
    reserved: integerIn(`${field}.reserved`, merged.reserved, 0, MAX_CONCURRENCY),
    maxConcurrency: integerIn(`${field}.maxConcurrency`, merged.maxConcurrency, 1, MAX_CONCURRENCY),
    queueTimeoutMs: duration(`${field}.queueTimeoutMs`, merged.queueTimeoutMs),
    maxQueue: bound(`${field}.maxQueue`, merged.maxQueue),
    maxWaitMs: duration(`${field}.maxWaitMs`, merged.maxWaitMs),
  };
  if (priority.maxConcurrency > maxConcurrency) {
    throw invalidOption(
      `${field}.maxConcurrency`,
      `at most \`maxConcurrency\` (${maxConcurrency})`,
      priority.maxConcurrency,
    );
  }
  if (priority.reserved > priority.maxConcurrency) {
    throw invalidOption(
      `${field}.reserved`,
      `at most its \`maxConcurrency\` (${priority.maxConcurrency})`,
      priority.reserved,
    );
  }
  return priority;
}

function fairnessOf(value: unknown): "requests" | "tokens" {
  const fairness = value ?? "requests";
  if (fairness !== "requests" && fairness !== "tokens") {
    throw invalidOption("fairness", '"requests" or "tokens"', fairness);
  }
  return fairness;
}

/**
 * Merges defaults under the given options (ignoring `undefined` fields) and validates every field,
 * throwing a `SchedulerError` with code `INVALID_OPTION` that names the field and the value.
 */
export function resolveOptions(options: SchedulerOptions = {}): ResolvedOptions {
  const object = plainObject("options", options);
  rejectUnknownKeys("", object, OPTION_KEYS);
  const given = definedOnly(object as SchedulerOptions);
  const limit = resolveLimit(given.maxConcurrency, given.adaptive);
  // Priorities are held to the highest limit (the fixed one, or the adaptive range's `max`).
  const maxConcurrency = limit.ceiling;
  const rawPriorities = plainObject("priorities", given.priorities ?? defaultPriorities(maxConcurrency));
  const names = Object.keys(rawPriorities);
  for (const name of names) {
    // A plain-object key in metrics() and events: "__proto__" would vanish there.
    if (nonEmptyString("priority names", name) === "__proto__") {
      throw invalidOption("priority names", "a name other than `__proto__`", name);
    }
  }
  if (names.length === 0)
    throw invalidOption("priorities", "an object with at least one priority", rawPriorities);
  const priorities = names.map((name, index) =>
    resolvePriority(name, index, rawPriorities[name], maxConcurrency),
  );
  const reservedTotal = priorities.reduce((sum, priority) => sum + priority.reserved, 0);
  if (reservedTotal > maxConcurrency) {
    throw invalidOption(
      "priorities.*.reserved",
      `in total at most \`maxConcurrency\` (${maxConcurrency})`,
      reservedTotal,
    );
  }
  const defaultPriority = nonEmptyString(
    "defaultPriority",
    given.defaultPriority ?? (names.includes("interactive") ? "interactive" : names[0]),
  );
  if (!names.includes(defaultPriority)) {
    throw invalidOption(
      "defaultPriority",
      `one of ${names.map((name) => `\`${name}\``).join(", ")}`,
      defaultPriority,
    );
  }
  const unknownPriority = given.unknownPriority ?? "reject";
  if (unknownPriority !== "reject" && unknownPriority !== "default") {
    throw invalidOption("unknownPriority", '"reject" or "default"', unknownPriority);
  }
  const adaptive = limit.adaptive === null ? null : withFloor(limit.adaptive, reservedTotal);
  return {
    maxConcurrency: adaptive === null ? maxConcurrency : adaptive.initial,
    adaptive,
    maxQueue: bound("maxQueue", given.maxQueue ?? Number.POSITIVE_INFINITY),
    priorities,
    priorityByName: new Map(priorities.map((priority) => [priority.name, priority])),
    preemption: resolvePreemption(rawPriorities, names),
    defaultPriority,
    unknownPriority,
    defaultTenant: shortKey(
      nonEmptyString("defaultTenant", given.defaultTenant ?? "default", Number.POSITIVE_INFINITY),
    ),
    ...resolveTenants(given.tenantDefaults, given.tenants, names),
    maxTokensInFlight: bound(
      "maxTokensInFlight",
      given.maxTokensInFlight ?? Number.POSITIVE_INFINITY,
      MAX_TOKENS,
    ),
    fairness: fairnessOf(given.fairness),
    outputTokenWeight: numberIn("outputTokenWeight", given.outputTokenWeight ?? 2, 0, 100),
    abortGraceMs: duration("abortGraceMs", given.abortGraceMs ?? 5_000),
    retryWindowMs: duration("retryWindowMs", given.retryWindowMs ?? 60_000),
    retryMemory: integerIn("retryMemory", given.retryMemory ?? 10_000, 0, 1_000_000),
    metricsTenantLimit: integerIn("metricsTenantLimit", given.metricsTenantLimit ?? 50, 0, 10_000),
    waitTargets: resolveWaitTargets(given.waitTargets, rawPriorities),
    clock: given.clock === undefined ? systemClock : methods("clock", given.clock, CLOCK_METHODS),
  };
}

/** Applies an update to the options the scheduler was built from; the caller resolves the result. */
export function mergeUpdate(current: SchedulerOptions, update: SchedulerUpdate): SchedulerOptions {
  const object = plainObject("update", update);
  rejectUnknownKeys("", object, UPDATE_KEYS);
  const patch = definedOnly(object as SchedulerUpdate);
  const limit = patch.maxConcurrency ?? current.maxConcurrency ?? 8;
  const priorities: Record<string, PriorityOptions> = {
    ...(current.priorities ?? defaultPriorities(typeof limit === "number" ? limit : 8)),
  };
  const changed = patch.priorities === undefined ? {} : plainObject("priorities", patch.priorities);
  for (const [name, fields] of Object.entries(changed)) {
    priorities[name] = { ...priorities[name], ...definedOnly(plainObject(`priorities.${name}`, fields)) };
  }
  return {
    ...current,
    ...patch,
    priorities,
    tenantDefaults: { ...current.tenantDefaults, ...definedOnly(patch.tenantDefaults ?? {}) },
    waitTargets:
      patch.waitTargets === undefined
        ? current.waitTargets
        : { ...current.waitTargets, ...definedOnly(plainObject("waitTargets", patch.waitTargets)) },
    tenants: mergeTenants(current.tenants ?? {}, patch.tenants),
    ...mergeAdaptive(current, patch),
  };
}

/** Each patched tenant's fields over its current entry (a tenant not named keeps its entry). */
function mergeTenants(
  current: Readonly<Record<string, TenantOptions>>,
  patch: unknown,
): Record<string, TenantOptions> {
  const merged: Record<string, TenantOptions> = { ...current };
  if (patch === undefined) return merged;
  for (const [name, fields] of Object.entries(plainObject("tenants", patch))) {
    merged[name] = { ...merged[name], ...definedOnly(plainObject(`tenants.${name}`, fields)) };
  }
  return merged;
}

/** The adaptive tunables merged over the current ones. */
function mergeAdaptive(
  current: SchedulerOptions,
  patch: SchedulerUpdate,
): Pick<SchedulerOptions, "adaptive"> {
  if (patch.adaptive === undefined) return {};
  return { adaptive: { ...current.adaptive, ...definedOnly(plainObject("adaptive", patch.adaptive)) } };
}

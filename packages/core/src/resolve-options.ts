import { resolveLimit, withFloor } from "./adaptive/options.js";
import { systemClock } from "./clock.js";
import {
  defaultPriorities,
  LIVE_KEYS,
  PREEMPTIBLE,
  PRIORITY,
  type PriorityOptions,
  type ResolvedOptions,
  type ResolvedPreemption,
  type ResolvedWaitTargets,
  SCHEDULER,
  type SchedulerOptions,
  type SchedulerUpdate,
  TENANT,
  type TenantOptions,
  WAIT_TARGETS,
  type WaitTargetOptions,
} from "./options.js";
import { object, withDefaults } from "./schema/schema.js";
import { shortKey } from "./short-key.js";
import type { ResolvedPriority, ResolvedTenant, StoreConfig } from "./store.js";
import { invalidOption, listed, plainObject, rejectUnknownKeys } from "./validate.js";

const OPTIONS = object(SCHEDULER, { doc: "the options of `createScheduler()`" });

/** Refuses `value` at `field` unless it is one of the configured priority `names`. */
function configuredName(field: string, value: string, names: readonly string[]): string {
  if (names.includes(value)) return value;
  throw invalidOption(field, `one of ${listed(names)}`, value);
}

/**
 * The priorities (fields checked already) over their defaults, in their configured order, each held to
 * the scheduler's limit; their reserved slots fit in `limit` together.
 */
function resolvePriorities(
  raw: Readonly<Record<string, PriorityOptions>>,
  limit: number,
): ResolvedPriority[] {
  const names = Object.keys(raw);
  if (names.length === 0) throw invalidOption("priorities", "an object with at least one priority", raw);
  const priorities = names.map((name, index) => {
    const field = `priorities.${name}`;
    const merged = withDefaults(PRIORITY, raw[name]!);
    const { weight, reserved, maxConcurrency = limit, queueTimeoutMs, maxQueue, maxWaitMs } = merged;
    if (maxConcurrency > limit) {
      throw invalidOption(`${field}.maxConcurrency`, `at most \`maxConcurrency\` (${limit})`, maxConcurrency);
    }
    if (reserved > maxConcurrency) {
      throw invalidOption(
        `${field}.reserved`,
        `at most its \`maxConcurrency\` (${maxConcurrency})`,
        reserved,
      );
    }
    return { name, index, weight, reserved, maxConcurrency, queueTimeoutMs, maxQueue, maxWaitMs };
  });
  const reservedTotal = priorities.reduce((sum, priority) => sum + priority.reserved, 0);
  if (reservedTotal > limit) {
    const expected = `in total at most \`maxConcurrency\` (${limit})`;
    throw invalidOption("priorities.*.reserved", expected, reservedTotal);
  }
  return priorities;
}

/** A tenant with no quota at all: what a tenant gets when neither `tenantDefaults` nor `tenants` says more. */
export const UNLIMITED_TENANT: ResolvedTenant = {
  ...withDefaults(TENANT, {}),
  burstTokens: Number.POSITIVE_INFINITY,
  maxPriority: undefined,
};

/** Fills in a tenant's bucket size (a tenth of its rate) and drops the bucket when the rate is unlimited. */
function withBucket(tenant: Omit<ResolvedTenant, "burstTokens"> & { burstTokens?: number }): ResolvedTenant {
  const rate = tenant.tokensPerMinute;
  if (rate === Number.POSITIVE_INFINITY) return { ...tenant, burstTokens: Number.POSITIVE_INFINITY };
  return { ...tenant, burstTokens: tenant.burstTokens ?? Math.max(1, Math.ceil(rate / 10)) };
}

/**
 * Resolves `tenantDefaults` and `tenants`: each named tenant is its own fields over the defaults' fields
 * over {@link UNLIMITED_TENANT}; a `maxPriority` must be one of the configured `priorities`.
 */
function resolveTenants(
  priorities: readonly string[],
  defaults: TenantOptions = {},
  tenants: Readonly<Record<string, TenantOptions>> = {},
): Pick<StoreConfig, "tenantDefaults" | "tenantQuotas" | "tenantWeights"> {
  if (defaults.maxPriority !== undefined)
    configuredName("tenantDefaults.maxPriority", defaults.maxPriority, priorities);
  const tenantDefaults = withBucket({ ...UNLIMITED_TENANT, ...defaults, burstTokens: defaults.burstTokens });
  const tenantQuotas = new Map<string, ResolvedTenant>();
  const tenantWeights = new Map<string, number>();
  for (const [tenant, own] of Object.entries(tenants)) {
    const key = shortKey(tenant);
    if (own.maxPriority !== undefined)
      configuredName(`tenants.${key}.maxPriority`, own.maxPriority, priorities);
    const burstTokens =
      own.burstTokens ?? (own.tokensPerMinute === undefined ? defaults.burstTokens : undefined);
    const resolved = withBucket({ ...UNLIMITED_TENANT, ...defaults, ...own, burstTokens });
    tenantQuotas.set(key, resolved);
    tenantWeights.set(key, resolved.weight);
  }
  return { tenantDefaults, tenantQuotas, tenantWeights };
}

/**
 * Reads `preempts` and `preemptible` of every priority (checked by the schema): `preempts` must name
 * configured priorities other than the priority itself. A priority named in some `preempts` without a
 * `preemptible` entry of its own gets the defaults. Returns `null` when no priority preempts.
 */
function resolvePreemption(priorities: Readonly<Record<string, PriorityOptions>>): ResolvedPreemption | null {
  const names = Object.keys(priorities);
  const preempts = new Map<string, ReadonlySet<string>>();
  for (const [name, { preempts: targets }] of Object.entries(priorities))
    if (targets !== undefined) preempts.set(name, targetsOf(name, targets, names));
  if (preempts.size === 0) return null;
  const targeted = new Set([...preempts.values()].flatMap((targets) => [...targets]));
  const maxPerTask = new Map<string, number>();
  for (const [name, { preemptible }] of Object.entries(priorities))
    if (preemptible !== undefined || targeted.has(name))
      maxPerTask.set(name, withDefaults(PREEMPTIBLE, preemptible ?? {}).maxPerTask);
  return { preempts, maxPerTask };
}

function targetsOf(name: string, targets: readonly string[], names: readonly string[]): ReadonlySet<string> {
  const field = `priorities.${name}.preempts`;
  for (const target of targets) {
    if (!names.includes(target)) {
      throw invalidOption(field, `names of configured priorities (${listed(names)})`, target);
    }
    if (target === name) throw invalidOption(field, "other priorities than itself", target);
  }
  return new Set(targets);
}

/**
 * The wait-target controller's settings from `waitTargets` and each priority's `targetWaitMs` (both
 * checked by the schema), with the declared defaults under what is not given.
 *
 * @example
 * resolveWaitTargets({ windowMs: 2_000 }, { interactive: { targetWaitMs: 500 }, batch: {} });
 */
export function resolveWaitTargets(
  checked: WaitTargetOptions | undefined,
  priorities: Readonly<Record<string, PriorityOptions>>,
): ResolvedWaitTargets {
  const targets = new Map<string, number>();
  for (const [name, { targetWaitMs }] of Object.entries(priorities))
    if (targetWaitMs !== undefined) targets.set(name, targetWaitMs);
  return { targets, ...withDefaults(WAIT_TARGETS, checked ?? {}) };
}

/**
 * Checks every field against the options' schema (see options.ts), merges the declared defaults
 * under the given fields (ignoring `undefined` ones) and checks what depends on several fields, throwing
 * a `SchedulerError` with code `INVALID_OPTION` that names the field and the value.
 *
 * @example
 * resolveOptions({ maxConcurrency: 4 }).priorities.map((p) => p.name); // ["interactive", "batch"]
 */
export function resolveOptions(options: SchedulerOptions = {}): ResolvedOptions {
  const given = OPTIONS.check("", options);
  const limit = resolveLimit(given.maxConcurrency, given.adaptive);
  // Priorities are held to the highest limit (the fixed one, or the adaptive range's `max`).
  const maxConcurrency = limit.ceiling;
  const raw = given.priorities ?? defaultPriorities(maxConcurrency);
  const priorities = resolvePriorities(raw, maxConcurrency);
  const names = Object.keys(raw);
  const defaultPriority = configuredName(
    "defaultPriority",
    given.defaultPriority ?? (names.includes("interactive") ? "interactive" : names[0]!),
    names,
  );
  const reservedTotal = priorities.reduce((sum, priority) => sum + priority.reserved, 0);
  const adaptive = limit.adaptive === null ? null : withFloor(limit.adaptive, reservedTotal);
  // The options that are their value or their default; the others are resolved over them below.
  const { store: _store, tenants, tenantDefaults, ...plain } = withDefaults(SCHEDULER, given);
  return {
    ...plain,
    maxConcurrency: adaptive === null ? maxConcurrency : adaptive.initial,
    adaptive,
    priorities,
    priorityByName: new Map(priorities.map((priority) => [priority.name, priority])),
    preemption: resolvePreemption(raw),
    defaultPriority,
    defaultTenant: shortKey(plain.defaultTenant),
    ...resolveTenants(names, tenantDefaults, tenants),
    waitTargets: resolveWaitTargets(given.waitTargets, raw),
    clock: given.clock ?? systemClock,
  };
}

/**
 * Applies an update to the options the scheduler was built from, by the schema's rules: an object option
 * merges field by field, a record (`priorities`, `tenants`) entry by entry, each entry
 * field by field (a new name adds an entry); any other option is replaced. The caller resolves the result.
 *
 * @example
 * mergeUpdate({ priorities: { a: { weight: 2 } } }, { priorities: { a: { reserved: 1 } } }); // a: { weight: 2, reserved: 1 }
 */
export function mergeUpdate(current: SchedulerOptions, update: SchedulerUpdate): SchedulerOptions {
  rejectUnknownKeys("", plainObject("update", update), LIVE_KEYS);
  return mergeFields("update", current, update, (key, now, value) => {
    const node = SCHEDULER[key as keyof typeof SCHEDULER];
    if ("entry" in node) return mergeEntries(key, now, value);
    return "shape" in node ? mergeFields(key, now, value) : value;
  }) as SchedulerOptions;
}

/** `patch`'s fields over `current`'s, `undefined` ones left out; `merge` says what a field becomes. */
function mergeFields(
  path: string,
  current: unknown,
  patch: unknown,
  merge = (_key: string, _current: unknown, value: unknown) => value,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(current as object | undefined) };
  for (const [key, value] of Object.entries(plainObject(path, patch)))
    if (value !== undefined) merged[key] = merge(key, merged[key], value);
  return merged;
}

function mergeEntries(path: string, current: unknown, patch: unknown): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(current as object | undefined) };
  for (const [name, fields] of Object.entries(plainObject(path, patch)))
    merged[name] = mergeFields(`${path}.${name}`, merged[name], fields);
  return merged;
}

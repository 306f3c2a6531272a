import { resolveLimit, withFloor } from "./adaptive/options.js";
import { resolveWaitTargets } from "./adaptive/wait-target-options.js";
import { systemClock } from "./clock.js";
import { LIVE_KEYS, PRIORITY, SCHEDULER } from "./option-schema.js";
import {
  defaultPriorities,
  type PriorityOptions,
  type ResolvedOptions,
  type SchedulerOptions,
  type SchedulerUpdate,
} from "./options.js";
import { resolvePreemption } from "./preemption-options.js";
import { object, withDefaults } from "./schema/schema.js";
import { shortKey } from "./short-key.js";
import type { ResolvedPriority } from "./store.js";
import { resolveTenants } from "./tenant-options.js";
import { definedOnly, invalidOption, plainObject, rejectUnknownKeys } from "./validate.js";

const OPTIONS = object(SCHEDULER, { doc: "the options of `createScheduler()`" });

/** Every key a priority's options may have (also for tools that read options from files). */
export const PRIORITY_KEYS = Object.keys(PRIORITY) as readonly (keyof PriorityOptions)[];

/** A priority's fields over its defaults, held to the scheduler's limit (fields are checked already). */
function resolvePriority(
  name: string,
  index: number,
  given: PriorityOptions,
  limit: number,
): ResolvedPriority {
  const field = `priorities.${name}`;
  const merged = withDefaults(PRIORITY, given);
  const { weight, reserved, maxConcurrency = limit, queueTimeoutMs, maxQueue, maxWaitMs } = merged;
  if (maxConcurrency > limit) {
    throw invalidOption(`${field}.maxConcurrency`, `at most \`maxConcurrency\` (${limit})`, maxConcurrency);
  }
  if (reserved > maxConcurrency) {
    throw invalidOption(`${field}.reserved`, `at most its \`maxConcurrency\` (${maxConcurrency})`, reserved);
  }
  return { name, index, weight, reserved, maxConcurrency, queueTimeoutMs, maxQueue, maxWaitMs };
}

/** The priorities, resolved in their configured order; their reserved slots fit in `limit` together. */
function resolvePriorities(
  raw: Readonly<Record<string, PriorityOptions>>,
  limit: number,
): ResolvedPriority[] {
  const names = Object.keys(raw);
  if (names.length === 0) throw invalidOption("priorities", "an object with at least one priority", raw);
  const priorities = names.map((name, index) => resolvePriority(name, index, raw[name]!, limit));
  const reservedTotal = priorities.reduce((sum, priority) => sum + priority.reserved, 0);
  if (reservedTotal > limit) {
    const expected = `in total at most \`maxConcurrency\` (${limit})`;
    throw invalidOption("priorities.*.reserved", expected, reservedTotal);
  }
  return priorities;
}

/**
 * Checks every field against the options' schema (see option-schema.ts), merges the declared defaults
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
  const defaultPriority =
    given.defaultPriority ?? (names.includes("interactive") ? "interactive" : names[0]!);
  if (!names.includes(defaultPriority)) {
    const list = names.map((name) => `\`${name}\``).join(", ");
    throw invalidOption("defaultPriority", `one of ${list}`, defaultPriority);
  }
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
  const object = plainObject("update", update);
  rejectUnknownKeys("", object, LIVE_KEYS);
  const patch = definedOnly(object);
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    const node = SCHEDULER[key as keyof typeof SCHEDULER];
    if ("entry" in node) merged[key] = mergeEntries(key, merged[key], value);
    else if ("shape" in node) merged[key] = mergeFields(key, merged[key], value);
    else merged[key] = value;
  }
  return merged as SchedulerOptions;
}

function mergeFields(path: string, current: unknown, patch: unknown): object {
  return { ...(current as object | undefined), ...definedOnly(plainObject(path, patch)) };
}

function mergeEntries(path: string, current: unknown, patch: unknown): Record<string, object> {
  const merged: Record<string, object> = { ...(current as Record<string, object> | undefined) };
  for (const [name, fields] of Object.entries(plainObject(path, patch))) {
    merged[name] = mergeFields(`${path}.${name}`, merged[name], fields);
  }
  return merged;
}

import { type Clock, systemClock } from "./clock.js";
import { shortKey } from "./short-key.js";
import type { ResolvedPriority, Store, StoreConfig } from "./store.js";

export type { ResolvedPriority } from "./store.js";

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
  "priorities",
  "defaultPriority",
  "unknownPriority",
  "maxQueue",
  "defaultTenant",
  "tenants",
  "abortGraceMs",
  "retryWindowMs",
  "retryMemory",
  "metricsTenantLimit",
  "store",
  "clock",
];
const PRIORITY_KEYS: readonly (keyof PriorityOptions)[] = [
  "weight",
  "reserved",
  "maxConcurrency",
  "queueTimeoutMs",
  "maxQueue",
  "maxWaitMs",
];
const TENANT_KEYS: readonly (keyof TenantOptions)[] = ["weight"];
const UPDATE_KEYS: readonly (keyof SchedulerUpdate)[] = [
  "maxConcurrency",
  "maxQueue",
  "priorities",
  "tenants",
  "abortGraceMs",
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

/** The range of a priority's `weight`. */
export const PRIORITY_WEIGHT = { min: 0.001, max: 1_000_000 } as const;
/** The range of a tenant's `weight` (the lower end bounds the turns a round of tenants can take). */
export const TENANT_WEIGHT = { min: 0.01, max: 1_000 } as const;

/** One lane of work, such as `interactive` or `batch`. */
export interface PriorityOptions {
  /**
   * Share of starts while several priorities wait: with weights 5 and 1, about five starts of the first
   * for each start of the second.
   * @default 1
   */
  readonly weight?: number;
  /**
   * Slots only this priority may use: an arrival starts at once while fewer than this many of its
   * priority run, whatever else is queued.
   * @default 0
   */
  readonly reserved?: number;
  /**
   * At most this many of this priority run at once.
   * @default the scheduler's `maxConcurrency`
   */
  readonly maxConcurrency?: number;
  /**
   * A task that waits longer than this for a slot is rejected with `QUEUE_TIMEOUT`. `Infinity` waits forever.
   * @default 60_000
   */
  readonly queueTimeoutMs?: number;
  /**
   * At most this many tasks of this priority wait; the next is rejected at once with `QUEUE_FULL`.
   * @default 10_000
   */
  readonly maxQueue?: number;
  /**
   * Aging bound: when this priority has had work waiting and no start for this long, its oldest task goes
   * next, whatever the weights say, as soon as a slot it may use is free; so it gets at least one start
   * per `maxWaitMs`. `Infinity` turns aging off.
   * @default Infinity
   */
  readonly maxWaitMs?: number;
}

/** Per-tenant settings. */
export interface TenantOptions {
  /**
   * Turns within a priority: a tenant of weight 2 gets two starts per round where others get one.
   * @default 1
   */
  readonly weight?: number;
}

/** Everything `createScheduler()` accepts. Every field is optional. */
export interface SchedulerOptions {
  /**
   * Requests (or cost units) in flight upstream at once, over all priorities.
   * @default 8
   */
  readonly maxConcurrency?: number;
  /**
   * The lanes. When given, exactly these exist.
   * @default { interactive: { weight: 5, reserved: 1, queueTimeoutMs: 10_000, maxQueue: 1_000 },
   *            batch: { weight: 1, queueTimeoutMs: 600_000, maxQueue: 100_000, maxWaitMs: 60_000 } }
   */
  readonly priorities?: Readonly<Record<string, PriorityOptions>>;
  /**
   * The priority of a task that names none.
   * @default "interactive" when configured, otherwise the first priority
   */
  readonly defaultPriority?: string;
  /**
   * What a task that names an unknown priority gets: `"reject"` (an `INVALID_PRIORITY` error) or
   * `"default"` (it runs as `defaultPriority`).
   * @default "reject"
   */
  readonly unknownPriority?: "reject" | "default";
  /**
   * At most this many tasks wait over all priorities together.
   * @default Infinity
   */
  readonly maxQueue?: number;
  /**
   * The tenant of a task that names none (any length; see `TaskOptions.tenant`).
   * @default "default"
   */
  readonly defaultTenant?: string;
  /**
   * Weights of named tenants, each from 0.01 to 1000; others weigh 1. Keys longer than 128 characters
   * are matched by their hash, as tasks' tenants are.
   */
  readonly tenants?: Readonly<Record<string, TenantOptions>>;
  /**
   * After a run timeout, a caller's abort or `close()` has aborted a running task's signal, its slot stays
   * taken until the task's function settles (so the upstream never sees more than the limit), but never
   * longer than this.
   * @default 5_000
   */
  readonly abortGraceMs?: number;
  /**
   * An `id` that was rejected (`QUEUE_FULL`, `QUEUE_TIMEOUT`) or timed out running within this window is treated as a retry
   * when it comes back: it goes to the front of its tenant's queue.
   * @default 60_000
   */
  readonly retryWindowMs?: number;
  /**
   * How many recently rejected ids are remembered for that (oldest forgotten first).
   * @default 10_000
   */
  readonly retryMemory?: number;
  /**
   * How many tenants `metrics()` lists (the busiest first).
   * @default 50
   */
  readonly metricsTenantLimit?: number;
  /**
   * Where the queues and counts live. The in-memory store is the default; `@llm-scheduler/redis`
   * shares them across instances.
   * @default a new in-memory store
   */
  readonly store?: Store;
  /**
   * Time source and timers. Pass a `VirtualClock` in tests and simulations.
   * @default systemClock
   */
  readonly clock?: Clock;
}

/** What the scheduler works from, after defaults and validation (the store gets its {@link StoreConfig} part). */
export interface ResolvedOptions extends StoreConfig {
  readonly priorityByName: ReadonlyMap<string, ResolvedPriority>;
  readonly defaultPriority: string;
  readonly unknownPriority: "reject" | "default";
  readonly defaultTenant: string;
  readonly abortGraceMs: number;
  readonly retryWindowMs: number;
  readonly retryMemory: number;
  readonly metricsTenantLimit: number;
}

/**
 * The part of the options a store needs, as a new object (so a store never sees the rest).
 *
 * @example
 * store.configure(storeConfigOf(resolveOptions({ maxConcurrency: 4 })));
 */
export function storeConfigOf(options: ResolvedOptions): StoreConfig {
  const { clock, maxConcurrency, maxQueue, priorities, tenantWeights } = options;
  return { clock, maxConcurrency, maxQueue, priorities, tenantWeights };
}

/** The two lanes a scheduler has when none are configured. */
export function defaultPriorities(maxConcurrency: number): Record<string, PriorityOptions> {
  return {
    interactive: { weight: 5, reserved: maxConcurrency > 1 ? 1 : 0, queueTimeoutMs: 10_000, maxQueue: 1_000 },
    batch: { weight: 1, queueTimeoutMs: 600_000, maxQueue: 100_000, maxWaitMs: 60_000 },
  };
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

function resolveTenants(raw: unknown): Map<string, number> {
  const weights = new Map<string, number>();
  if (raw === undefined) return weights;
  for (const [tenant, options] of Object.entries(plainObject("tenants", raw))) {
    const key = shortKey(tenant);
    const object = plainObject(`tenants.${key}`, options);
    rejectUnknownKeys(`tenants.${key}`, object, TENANT_KEYS);
    const weight = definedOnly(object as TenantOptions).weight ?? 1;
    weights.set(key, numberIn(`tenants.${key}.weight`, weight, TENANT_WEIGHT.min, TENANT_WEIGHT.max));
  }
  return weights;
}

/**
 * Merges defaults under the given options (ignoring `undefined` fields) and validates every field,
 * throwing a `SchedulerError` with code `INVALID_OPTION` that names the field and the value.
 */
export function resolveOptions(options: SchedulerOptions = {}): ResolvedOptions {
  const object = plainObject("options", options);
  rejectUnknownKeys("", object, OPTION_KEYS);
  const given = definedOnly(object as SchedulerOptions);
  const maxConcurrency = integerIn("maxConcurrency", given.maxConcurrency ?? 8, 1, MAX_CONCURRENCY);
  const rawPriorities = plainObject("priorities", given.priorities ?? defaultPriorities(maxConcurrency));
  const names = Object.keys(rawPriorities);
  for (const name of names) nonEmptyString("priority names", name);
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
  return {
    maxConcurrency,
    maxQueue: bound("maxQueue", given.maxQueue ?? Number.POSITIVE_INFINITY),
    priorities,
    priorityByName: new Map(priorities.map((priority) => [priority.name, priority])),
    defaultPriority,
    unknownPriority,
    defaultTenant: shortKey(
      nonEmptyString("defaultTenant", given.defaultTenant ?? "default", Number.POSITIVE_INFINITY),
    ),
    tenantWeights: resolveTenants(given.tenants),
    abortGraceMs: duration("abortGraceMs", given.abortGraceMs ?? 5_000),
    retryWindowMs: duration("retryWindowMs", given.retryWindowMs ?? 60_000),
    retryMemory: integerIn("retryMemory", given.retryMemory ?? 10_000, 0, 1_000_000),
    metricsTenantLimit: integerIn("metricsTenantLimit", given.metricsTenantLimit ?? 50, 0, 10_000),
    clock: given.clock === undefined ? systemClock : methods("clock", given.clock, CLOCK_METHODS),
  };
}

/** What `update()` accepts: limits and priority fields to change while running. */
export interface SchedulerUpdate {
  readonly maxConcurrency?: number;
  readonly maxQueue?: number;
  /** Fields to change per priority; a name not configured yet adds that priority. */
  readonly priorities?: Readonly<Record<string, PriorityOptions>>;
  readonly tenants?: Readonly<Record<string, TenantOptions>>;
  readonly abortGraceMs?: number;
}

/** Applies an update to the options the scheduler was built from; the caller resolves the result. */
export function mergeUpdate(current: SchedulerOptions, update: SchedulerUpdate): SchedulerOptions {
  const object = plainObject("update", update);
  rejectUnknownKeys("", object, UPDATE_KEYS);
  const patch = definedOnly(object as SchedulerUpdate);
  const maxConcurrency = patch.maxConcurrency ?? current.maxConcurrency ?? 8;
  const priorities: Record<string, PriorityOptions> = {
    ...(current.priorities ?? defaultPriorities(maxConcurrency)),
  };
  const changed = patch.priorities === undefined ? {} : plainObject("priorities", patch.priorities);
  for (const [name, fields] of Object.entries(changed)) {
    priorities[name] = { ...priorities[name], ...definedOnly(plainObject(`priorities.${name}`, fields)) };
  }
  return {
    ...current,
    ...patch,
    priorities,
    tenants: {
      ...current.tenants,
      ...((patch.tenants === undefined ? {} : plainObject("tenants", patch.tenants)) as Record<
        string,
        TenantOptions
      >),
    },
  };
}

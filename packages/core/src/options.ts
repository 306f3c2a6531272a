import { ADAPTIVE_OPTION, LIMIT_OPTION, type ResolvedAdaptive } from "./adaptive/options.js";
import type { Clock } from "./clock.js";
import {
  custom,
  duration,
  type InferShape,
  integer,
  methods,
  number,
  object,
  oneOf,
  positive,
  type Resolved,
  record,
  string,
} from "./schema/schema.js";
import { shortKey } from "./short-key.js";
import type { ResolvedPriority, Store, StoreConfig } from "./store.js";
import { invalidOption, MAX_CONCURRENCY, MAX_QUEUE } from "./validate.js";

/** The largest token figure an option or a call takes (`maxTokensInFlight`, `tokens`, bucket sizes). */
export const MAX_TOKENS = 1_000_000_000_000;
/** The range of a priority's `weight`. */
export const PRIORITY_WEIGHT = { min: 0.001, max: 1_000_000 } as const;
/** The largest `targetWaitMs` and `waitTargets.windowMs`: one hour. */
const MAX_TARGET_MS = 3_600_000;

/** How a priority's running tasks may be preempted (by a priority that names it in `preempts`). */
export const PREEMPTIBLE = {
  maxPerTask: integer(1, 100, {
    default: 2,
    doc: "after this many preemptions a task is immune: it keeps its slot until it ends",
  }),
};

/** One lane of work, such as `interactive` or `batch` (see the README's option table for each field). */
export const PRIORITY = {
  weight: number(PRIORITY_WEIGHT.min, PRIORITY_WEIGHT.max, {
    default: 1,
    doc: "share of starts while several priorities wait (weights 5 and 1: five starts to one)",
  }),
  reserved: integer(0, MAX_CONCURRENCY, {
    default: 0,
    shownRange: "an integer from 0 to its `maxConcurrency` (all together at most `maxConcurrency`)",
    doc: "slots only this priority may use: an arrival starts at once while fewer of its priority run",
  }),
  maxConcurrency: integer(1, MAX_CONCURRENCY, {
    shownRange: "an integer from 1 to the scheduler's `maxConcurrency`",
    shownDefault: "the scheduler's `maxConcurrency`",
    doc: "at most this many of this priority run at once",
  }),
  queueTimeoutMs: duration({
    default: 60_000,
    doc: "a task that waits longer is rejected with `QUEUE_TIMEOUT`",
  }),
  maxQueue: integer(1, MAX_QUEUE, {
    infinite: true,
    default: 10_000,
    doc: "at most this many wait; the next is rejected at once with `QUEUE_FULL`",
  }),
  maxWaitMs: duration({
    default: Number.POSITIVE_INFINITY,
    doc: "aging bound: after this long with work waiting and no start, its oldest task goes next",
  }),
  preempts: custom<readonly string[]>({
    // Its names are checked against the configured ones in resolve-options.ts.
    check: (path, value) => {
      if (Array.isArray(value)) return value;
      throw invalidOption(path, "an array of priority names", value);
    },
    range: "an array of priority names",
    shownRange: "configured names, not its own (see Preemption)",
    json: { type: "array", items: { type: "string" }, uniqueItems: true },
    shownDefault: "`[]`",
    doc: "preemption: an arrival of this priority may stop one running task of these priorities",
  }),
  preemptible: object(PREEMPTIBLE, {
    shownDefault: "`{ maxPerTask: 2 }` when another priority preempts it",
    doc: "how this priority's tasks may be preempted",
  }),
  targetWaitMs: positive(MAX_TARGET_MS, {
    doc: "p95 wait target: the effective weight and reserved slots rise while the p95 wait is above it",
  }),
};

/** Per-tenant settings and quotas (in `tenants.<key>` and `tenantDefaults`). */
export const TENANT = {
  // The lower end bounds the turns a round of tenants can take.
  weight: number(0.01, 1_000, {
    default: 1,
    doc: 'share within a priority: weight 2 gets two starts per round (with `fairness: "tokens"`, twice the tokens)',
  }),
  maxConcurrency: integer(1, MAX_CONCURRENCY, {
    infinite: true,
    default: Number.POSITIVE_INFINITY,
    doc: "at most this many of the tenant's tasks (cost units, over all priorities) run at once",
  }),
  maxQueue: integer(1, MAX_QUEUE, {
    infinite: true,
    default: Number.POSITIVE_INFINITY,
    doc: "at most this many of the tenant's tasks wait; the next is refused with `TENANT_QUEUE_FULL`",
  }),
  tokensPerMinute: integer(1, MAX_TOKENS, {
    infinite: true,
    default: Number.POSITIVE_INFINITY,
    shownDefault: "`Infinity` (no bucket)",
    doc: "a token bucket's refill rate; a start the bucket cannot cover is refused with `RATE_LIMITED`",
  }),
  burstTokens: integer(1, MAX_TOKENS, {
    shownDefault: "a tenth of `tokensPerMinute`",
    doc: "the bucket's size: what an idle tenant may spend at once",
  }),
  maxPriority: string(Number.POSITIVE_INFINITY, {
    shownRange: "a configured priority name",
    doc: "the most urgent priority the tenant may use: a more urgent task is lowered to it",
  }),
};

/** How the wait-target controller judges and bounds its changes (see `targetWaitMs`). */
export const WAIT_TARGETS = {
  windowMs: positive(MAX_TARGET_MS, {
    default: 5_000,
    doc: "one measuring window: each target is judged once per window",
  }),
  minSamples: integer(1, 100_000, { default: 20, doc: "a window is judged once it holds this many starts" }),
  calmWindows: integer(1, 1_000, {
    default: 3,
    doc: "windows in a row with every wait under half the target before a step of share is given back",
  }),
  maxBoost: number(1, 10_000, {
    default: 64,
    doc: "the effective weight stays at most this many times the configured one",
  }),
  maxReservedShare: number(0, 1, {
    default: 0.75,
    doc: "a priority's effective `reserved` stays at most this share of `maxConcurrency`",
  }),
};

const NAME = string(64, { doc: "a priority's name" });

/** A priority name: a plain-object key in `metrics()` and events, where `__proto__` would vanish. */
function priorityName(_path: string, name: string): string {
  if (NAME.check("priority names", name) === "__proto__") {
    throw invalidOption("priority names", "a name other than `__proto__`", name);
  }
  return name;
}

/** The options `update()` may change while the scheduler runs: objects merge field by field, named entries per name. */
const LIVE = {
  maxConcurrency: LIMIT_OPTION,
  adaptive: ADAPTIVE_OPTION,
  priorities: record(object(PRIORITY, { doc: "one lane of work" }), {
    key: priorityName,
    shownDefault:
      "`interactive` (weight 5, 1 reserved, 10 s, 1,000 queued), `batch` (weight 1, 10 min, 100,000 queued, aging 60 s)",
    doc: "the lanes, by name (1 to 64 characters); when given, exactly these exist",
  }),
  maxQueue: integer(1, MAX_QUEUE, {
    infinite: true,
    default: Number.POSITIVE_INFINITY,
    doc: "at most this many tasks wait over all priorities together",
  }),
  tenants: record(object(TENANT, { doc: "one tenant's quotas" }), {
    key: (_path, name) => shortKey(name),
    shownRange: "an object of tenant options (below) by tenant key",
    doc: "weights and quotas of named tenants, over `tenantDefaults`",
  }),
  tenantDefaults: object(TENANT, {
    shownRange: "tenant options (below)",
    shownDefault: "no quotas",
    doc: "quotas of every tenant without its own entry, and the fields an entry leaves out",
  }),
  maxTokensInFlight: integer(1, MAX_TOKENS, {
    infinite: true,
    default: Number.POSITIVE_INFINITY,
    doc: "estimated tokens in flight at once: a second limit beside `maxConcurrency`",
  }),
  fairness: oneOf(["requests", "tokens"], {
    default: "requests",
    doc: "tenants share a priority by starts (weighted round robin) or by weighted tokens served",
  }),
  outputTokenWeight: number(0, 100, {
    default: 2,
    doc: 'what one output token counts against one input token with `fairness: "tokens"`',
  }),
  abortGraceMs: duration({
    default: 5_000,
    doc: "an aborted running task keeps its slot until its function settles, at most this long",
  }),
  waitTargets: object(WAIT_TARGETS, {
    shownDefault: "the defaults of its fields",
    doc: "how the wait-target controller judges and bounds its changes",
  }),
};

/** The options fixed at creation. */
const FIXED = {
  defaultPriority: string(64, {
    shownRange: "a configured priority name",
    shownDefault: "`interactive` when configured, else the first",
    doc: "the priority of a task that names none",
  }),
  unknownPriority: oneOf(["reject", "default"], {
    default: "reject",
    doc: "a task naming an unknown priority gets `INVALID_PRIORITY`, or runs as `defaultPriority`",
  }),
  defaultTenant: string(Number.POSITIVE_INFINITY, {
    default: "default",
    doc: "the tenant of a task that names none (long ones are hashed)",
  }),
  retryWindowMs: duration({
    default: 60_000,
    doc: "an id refused or timed out within this window counts as a retry when it comes back",
  }),
  retryMemory: integer(0, 1_000_000, {
    default: 10_000,
    doc: "how many refused ids (and, apart, tenant refusals) are remembered for that",
  }),
  metricsTenantLimit: integer(0, 10_000, {
    default: 50,
    doc: "how many tenants `metrics()` lists, busiest first",
  }),
  store: methods<Store>(
    ["attach", "configure", "enqueue", "remove", "release", "removeAll", "depth", "snapshot", "detach"],
    {
      range: "an object with the `Store` methods",
      shownDefault: "a new `MemoryStore`",
      doc: "where the queues and counts live; `@llm-scheduler/redis` shares them across instances",
    },
  ),
  clock: methods<Clock>(["now", "setTimer", "clearTimer"], {
    range: "an object with `now`, `setTimer`, `clearTimer`",
    shownDefault: "`systemClock`",
    doc: "time source and timers; a `VirtualClock` in tests and simulations",
  }),
};

/** One lane of work, such as `interactive` or `batch`. */
export type PriorityOptions = InferShape<typeof PRIORITY>;
/** How a priority's running tasks may be preempted (see `PriorityOptions.preemptible`). */
export type PreemptibleOptions = InferShape<typeof PREEMPTIBLE>;
/** Per-tenant settings and quotas (see also `tenantDefaults`). */
export type TenantOptions = InferShape<typeof TENANT>;
/** How the wait-target controller works (see `PriorityOptions.targetWaitMs`); every field is optional. */
export type WaitTargetOptions = InferShape<typeof WAIT_TARGETS>;

/** Everything `createScheduler()` accepts, declared once: types, checks, defaults, docs and tables come from here. */
export const SCHEDULER = { ...LIVE, ...FIXED };
/** The top-level options `update()` may change. */
export const LIVE_KEYS = Object.keys(LIVE) as readonly (keyof typeof LIVE)[];
/** Every key a priority's options may have (also for tools that read options from files). */
export const PRIORITY_KEYS = Object.keys(PRIORITY) as readonly (keyof PriorityOptions)[];

/** Everything `createScheduler()` accepts. Every field is optional. */
export type SchedulerOptions = InferShape<typeof SCHEDULER>;
/** What `update()` accepts: the live options; objects merge field by field, named entries per name. */
export type SchedulerUpdate = InferShape<typeof LIVE>;

/** Preemption as the scheduler applies it; `null` in `ResolvedOptions.preemption` when off. */
export interface ResolvedPreemption {
  /** For each priority that preempts: the priorities whose running tasks it may stop. */
  readonly preempts: ReadonlyMap<string, ReadonlySet<string>>;
  /** For each priority that may be preempted: the preemptions after which a task is immune. */
  readonly maxPerTask: ReadonlyMap<string, number>;
}

/** The wait-target controller's settings, with `targetWaitMs` by priority name (for those that have one). */
export type ResolvedWaitTargets = Resolved<typeof WAIT_TARGETS> & {
  readonly targets: ReadonlyMap<string, number>;
};

/** The options that resolve to their value as given, or their default. */
type PlainKey = "unknownPriority" | "abortGraceMs" | "retryWindowMs" | "retryMemory" | "metricsTenantLimit";

/** What the scheduler works from, after defaults and validation (the store gets its {@link StoreConfig} part). */
export interface ResolvedOptions extends StoreConfig, Pick<Resolved<typeof SCHEDULER>, PlainKey> {
  /** Who may preempt whom (from the priorities' `preempts` and `preemptible`); `null` when off. */
  readonly preemption: ResolvedPreemption | null;
  /** The adaptive limit's range and tunables; `null` for a fixed limit (`maxConcurrency` is the start). */
  readonly adaptive: ResolvedAdaptive | null;
  readonly priorityByName: ReadonlyMap<string, ResolvedPriority>;
  readonly defaultPriority: string;
  readonly defaultTenant: string;
  readonly waitTargets: ResolvedWaitTargets;
}

/** The two lanes a scheduler has when none are configured. */
export function defaultPriorities(maxConcurrency: number): Record<string, PriorityOptions> {
  return {
    interactive: { weight: 5, reserved: maxConcurrency > 1 ? 1 : 0, queueTimeoutMs: 10_000, maxQueue: 1_000 },
    batch: { weight: 1, queueTimeoutMs: 600_000, maxQueue: 100_000, maxWaitMs: 60_000 },
  };
}

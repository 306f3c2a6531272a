import type { AdaptiveOptions, ConcurrencyRange, ResolvedAdaptive } from "./adaptive/options.js";
import type { ResolvedWaitTargets, WaitTargetOptions } from "./adaptive/wait-target-options.js";
import type { Clock } from "./clock.js";
import type { PreemptibleOptions, ResolvedPreemption } from "./preemption-options.js";
import type { ResolvedPriority, Store, StoreConfig } from "./store.js";

export type { ResolvedPriority } from "./store.js";

/** The range of a priority's `weight`. */
export const PRIORITY_WEIGHT = { min: 0.001, max: 1_000_000 } as const;
/** The range of a tenant's `weight` (the lower end bounds the turns a round of tenants can take). */
export const TENANT_WEIGHT = { min: 0.01, max: 1_000 } as const;

/** One lane of work, such as `interactive` or `batch`. */
export interface PriorityOptions {
  /**
   * Share of starts while several priorities wait: with weights 5 and 1, about five starts of the first
   * for each start of the second. From 0.001 to 1,000,000.
   * @default 1
   */
  readonly weight?: number;
  /**
   * Slots only this priority may use: an arrival starts at once while fewer than this many of its
   * priority run, whatever else is queued. An integer up to this priority's `maxConcurrency`; all
   * priorities' together at most the scheduler's `maxConcurrency`.
   * @default 0
   */
  readonly reserved?: number;
  /**
   * At most this many of this priority run at once: an integer from 1 to the scheduler's `maxConcurrency`.
   * @default the scheduler's `maxConcurrency`
   */
  readonly maxConcurrency?: number;
  /**
   * A task that waits longer than this for a slot is rejected with `QUEUE_TIMEOUT`: above 0 and at most
   * 365 days, or `Infinity` to wait forever.
   * @default 60_000
   */
  readonly queueTimeoutMs?: number;
  /**
   * At most this many tasks of this priority wait; the next is rejected at once with `QUEUE_FULL`. An
   * integer from 1 to 10,000,000, or `Infinity`.
   * @default 10_000
   */
  readonly maxQueue?: number;
  /**
   * Aging bound: when this priority has had work waiting and no start for this long, its oldest task goes
   * next, whatever the weights say, as soon as a slot it may use is free; so it gets at least one start
   * per `maxWaitMs`. Above 0 and at most 365 days; `Infinity` turns aging off.
   * @default Infinity
   */
  readonly maxWaitMs?: number;
  /**
   * Preemption (opt-in): when a task of this priority arrives and no slot is free or reserved for it,
   * one running task of these priorities is stopped (its signal aborts with `PREEMPTED`) and its slot
   * handed to the arrival once it has let go; a `run()` task goes back to the front of its queue and
   * runs again later, unseen by its caller. Configured priority names other than this one. Needs a store
   * that can hand a slot over (the in-memory one).
   * @default [] (preempts nothing)
   */
  readonly preempts?: readonly string[];
  /**
   * How this priority's tasks may be preempted (by a priority that names it in `preempts`).
   * @default { maxPerTask: 2 } when another priority preempts this one
   */
  readonly preemptible?: PreemptibleOptions;
  /**
   * Wait-time target: the scheduler raises this priority's EFFECTIVE weight and reserved slots while its
   * p95 queue wait is above this many ms, and gives them back gently while its waits stay well under,
   * so it gets as much of the server as it needs and the others get the rest. The configured `weight`
   * and `reserved` are the floor. Above 0 and at most one hour; tune it with `waitTargets`.
   * @default none (the share stays as configured)
   */
  readonly targetWaitMs?: number;
}

/** The largest token figure an option or a call takes (`maxTokensInFlight`, `tokens`, bucket sizes). */
export const MAX_TOKENS = 1_000_000_000_000;

/** Per-tenant settings and quotas (see also `tenantDefaults`). */
export interface TenantOptions {
  /**
   * Share within a priority: a tenant of weight 2 gets two starts per round where others get one (with
   * `fairness: "tokens"`, twice the tokens). From 0.01 to 1,000.
   * @default 1
   */
  readonly weight?: number;
  /**
   * At most this many of the tenant's tasks (cost units, over all priorities) run at once; its other
   * tasks wait without holding up other tenants. An integer from 1 to 1,000,000, or `Infinity`.
   * @default Infinity
   */
  readonly maxConcurrency?: number;
  /**
   * At most this many of the tenant's tasks wait (over all priorities); the next is refused at once with
   * `TENANT_QUEUE_FULL` (429). An integer from 1 to 10,000,000, or `Infinity`.
   * @default Infinity
   */
  readonly maxQueue?: number;
  /**
   * A token bucket: refills at this many tokens per minute; each start is charged its `tokens` estimate,
   * corrected later by `reportUsage`. A task the bucket cannot cover (counting what the tenant already
   * has waiting) is refused with `RATE_LIMITED` (429) and a `retryAfterMs` from the refill time. An
   * integer from 1 to 10^12, or `Infinity` (no bucket).
   * @default Infinity
   */
  readonly tokensPerMinute?: number;
  /**
   * The bucket's size: what an idle tenant may spend at once. An integer from 1 to 10^12. A task larger
   * than the whole bucket starts only from a full bucket (and leaves it in debt).
   * @default a tenth of `tokensPerMinute` (six seconds of refill)
   */
  readonly burstTokens?: number;
  /**
   * The most urgent priority the tenant may use: a task asking for a more urgent one is lowered to it
   * (never raised). A configured priority name.
   * @default none (every priority)
   */
  readonly maxPriority?: string;
}

/** Everything `createScheduler()` accepts. Every field is optional. */
export interface SchedulerOptions {
  /**
   * Requests (or cost units) in flight upstream at once, over all priorities: an integer from 1 to
   * 1,000,000; or a range `{ initial, min, max }` within which the scheduler finds the limit itself from
   * the upstream's answers and latency (the adaptive limit: see `adaptive`).
   * @default 8
   */
  readonly maxConcurrency?: number | ConcurrencyRange;
  /**
   * Tunables of the adaptive limit; only with `maxConcurrency: { initial, min, max }` (which turns it on).
   * @default see {@link AdaptiveOptions}
   */
  readonly adaptive?: AdaptiveOptions;
  /**
   * Estimated tokens (each task's `tokens`) in flight at once: a second limit beside `maxConcurrency`, a
   * start needs both. A single task larger than the whole budget runs alone rather than never. An integer
   * from 1 to 10^12, or `Infinity`.
   * @default Infinity
   */
  readonly maxTokensInFlight?: number;
  /**
   * How tenants share a priority: `"requests"` gives them turns by starts (weighted round robin);
   * `"tokens"` starts the waiting tenant served the fewest weighted tokens so far (a returning tenant is
   * lifted to the smallest counter among the active ones, so idle time is not banked).
   * @default "requests"
   */
  readonly fairness?: "requests" | "tokens";
  /**
   * How much one output token counts against one input token in `fairness: "tokens"` (LLM servers spend
   * more per generated token). A number from 0 to 100.
   * @default 2
   */
  readonly outputTokenWeight?: number;
  /**
   * Quotas of every tenant without its own entry in `tenants` (any tenant name is fine: a key per tenant
   * needs no configuration). Fields a `tenants` entry leaves out also come from here.
   * @default no quotas
   */
  readonly tenantDefaults?: TenantOptions;
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
   * At most this many tasks wait over all priorities together: an integer from 1 to 10,000,000, or
   * `Infinity`.
   * @default Infinity
   */
  readonly maxQueue?: number;
  /**
   * The tenant of a task that names none (any length; see `TaskOptions.tenant`).
   * @default "default"
   */
  readonly defaultTenant?: string;
  /**
   * Weights and quotas of named tenants (over `tenantDefaults`). Keys longer than 128 characters are
   * matched by their hash, as tasks' tenants are.
   */
  readonly tenants?: Readonly<Record<string, TenantOptions>>;
  /**
   * After a run timeout, a caller's abort or `close()` has aborted a running task's signal, its slot stays
   * taken until the task's function settles (so the upstream never sees more than the limit), but never
   * longer than this (above 0 and at most 365 days, or `Infinity`).
   * @default 5_000
   */
  readonly abortGraceMs?: number;
  /**
   * An `id` that was rejected (`QUEUE_FULL`, `QUEUE_TIMEOUT`) or timed out running within this window is treated as a retry
   * when it comes back: it goes to the front of its tenant's queue; each such refusal also lets one
   * `claimedRetry` of its tenant go to the front. Above 0 and at most 365 days, or `Infinity`.
   * @default 60_000
   */
  readonly retryWindowMs?: number;
  /**
   * How many recently rejected ids (and, separately, tenant refusals) are remembered for that, oldest
   * forgotten first: an integer from 0 to 1,000,000.
   * @default 10_000
   */
  readonly retryMemory?: number;
  /**
   * How many tenants `metrics()` lists (the busiest first): an integer from 0 to 10,000.
   * @default 50
   */
  readonly metricsTenantLimit?: number;
  /** How the wait-target controller judges and bounds its changes (see `PriorityOptions.targetWaitMs`). */
  readonly waitTargets?: WaitTargetOptions;
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
  /** Who may preempt whom (from the priorities' `preempts` and `preemptible`); `null` when off. */
  readonly preemption: ResolvedPreemption | null;
  /** The adaptive limit's range and tunables; `null` for a fixed limit (`maxConcurrency` is the start). */
  readonly adaptive: ResolvedAdaptive | null;
  readonly priorityByName: ReadonlyMap<string, ResolvedPriority>;
  readonly defaultPriority: string;
  readonly unknownPriority: "reject" | "default";
  readonly defaultTenant: string;
  readonly abortGraceMs: number;
  readonly retryWindowMs: number;
  readonly retryMemory: number;
  readonly metricsTenantLimit: number;
  readonly waitTargets: ResolvedWaitTargets;
}

/**
 * The part of the options a store needs, as a new object (so a store never sees the rest).
 *
 * @example
 * store.configure(storeConfigOf(resolveOptions({ maxConcurrency: 4 })));
 */
export function storeConfigOf(options: ResolvedOptions): StoreConfig {
  const { clock, maxConcurrency, maxQueue, priorities, tenantWeights } = options;
  const { maxTokensInFlight, fairness, outputTokenWeight, tenantDefaults, tenantQuotas } = options;
  const config: StoreConfig = {
    clock,
    maxConcurrency,
    maxQueue,
    priorities,
    tenantWeights,
    maxTokensInFlight,
    fairness,
    outputTokenWeight,
    tenantDefaults,
    tenantQuotas,
  };
  return options.adaptive === null ? config : { ...config, adaptiveLimit: true };
}

/** The two lanes a scheduler has when none are configured. */
export function defaultPriorities(maxConcurrency: number): Record<string, PriorityOptions> {
  return {
    interactive: { weight: 5, reserved: maxConcurrency > 1 ? 1 : 0, queueTimeoutMs: 10_000, maxQueue: 1_000 },
    batch: { weight: 1, queueTimeoutMs: 600_000, maxQueue: 100_000, maxWaitMs: 60_000 },
  };
}

/** What `update()` accepts: limits and priority fields to change while running. */
export interface SchedulerUpdate {
  /**
   * A number: a fixed limit, or, while the limit is adaptive, the limit to go on from (within its
   * range: adaptation goes on). A range: new bounds (the limit moves into them, or starts from
   * `initial` when given); on a fixed scheduler it turns the adaptive limit on.
   */
  readonly maxConcurrency?: number | ConcurrencyRange;
  /** New tunables of the adaptive limit (merged over the current ones). */
  readonly adaptive?: AdaptiveOptions;
  readonly maxTokensInFlight?: number;
  readonly fairness?: "requests" | "tokens";
  readonly outputTokenWeight?: number;
  /** Replaces the defaults' fields it names. */
  readonly tenantDefaults?: TenantOptions;
  readonly maxQueue?: number;
  /** Fields to change per priority; a name not configured yet adds that priority. */
  readonly priorities?: Readonly<Record<string, PriorityOptions>>;
  /** Fields to change per tenant (merged over its current entry). */
  readonly tenants?: Readonly<Record<string, TenantOptions>>;
  readonly abortGraceMs?: number;
  /** Replaces the wait-target settings it names. */
  readonly waitTargets?: WaitTargetOptions;
}

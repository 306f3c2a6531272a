import type {
  AdaptiveOptions,
  PriorityOptions,
  SchedulerOptions,
  TenantOptions,
  WaitTargetOptions,
} from "@llm-scheduler/core";
import type { EngineLoadOptions, Routing, SpeedOptions } from "@llm-scheduler/pool";
import type { ResolvedLatencyOptions } from "@llm-scheduler/upstream-sim";
import type { CapacityOptions } from "./capacity.js";
import type { ScenarioCapacity } from "./scenario-capacity.js";

/**
 * A whole-number amount: a plain number is fixed, `{ min, max }` is drawn uniformly from `min..max`
 * (both included) for each request.
 *
 * @example
 * const promptTokens: Range = { min: 20, max: 200 };
 */
export type Range = number | { readonly min: number; readonly max: number };

/** How fast the simulated LLM server is; the same model as `@llm-scheduler/upstream-sim`. */
export interface ScenarioUpstream {
  /** Sequences served at once (vLLM `--max-num-seqs`, `OLLAMA_NUM_PARALLEL`). @default 4 */
  readonly parallel?: number;
  /** Base time to first token, ms. @default 50 */
  readonly ttftMs?: number;
  /** Prefill time per prompt token, ms. @default 0.2 */
  readonly prefillMsPerToken?: number;
  /** Decode time per token when a sequence runs alone, ms. @default 20 */
  readonly tokenMs?: number;
  /** Extra step time with a full batch: `1` makes a full batch twice as slow. @default 1 */
  readonly slowdown?: number;
  /**
   * What the server can really take, which the gateway is not told: steep slowdown past a knee, 503 past
   * a hard limit, and changes mid-run (for the adaptive limit). @default none (it never refuses)
   */
  readonly capacity?: ScenarioCapacity;
}

/** The gateway in front of the server; both the FIFO baseline and llm-scheduler get the same limit. */
export interface ScenarioGateway {
  /**
   * Requests in flight upstream at once; or `{ initial, min, max }` for the scheduler's adaptive limit
   * (the FIFO baseline then gets `initial`). @default `upstream.parallel`
   */
  readonly maxConcurrency?:
    | number
    | { readonly initial?: number; readonly min: number; readonly max: number };
}

/**
 * The scheduler's options as JSON: anything `createScheduler()` takes except `maxConcurrency` (set by
 * `gateway.maxConcurrency`), `clock` and `store`. Durations and bounds may be the string `"Infinity"`.
 */
export interface ScenarioScheduler {
  /** @default core's defaults (`interactive` weight 5 with 1 reserved slot, `batch` weight 1) */
  readonly priorities?: Readonly<Record<string, PriorityOptions>>;
  /** Weights and quotas per tenant (`maxConcurrency`, `maxQueue`, `tokensPerMinute`, `maxPriority`, …). */
  readonly tenants?: Readonly<Record<string, TenantOptions>>;
  /** Quotas of every tenant without an entry of its own. */
  readonly tenantDefaults?: TenantOptions;
  /** Estimated tokens in flight at once (each request is estimated as its prompt plus `maxTokens`). */
  readonly maxTokensInFlight?: number | "Infinity";
  /** `"requests"` (turns by starts) or `"tokens"` (by weighted tokens served). */
  readonly fairness?: "requests" | "tokens";
  readonly outputTokenWeight?: number;
  readonly maxQueue?: number;
  readonly retryWindowMs?: number;
  readonly abortGraceMs?: number;
  /** Tunables of the adaptive limit (with `gateway.maxConcurrency: { initial, min, max }`). */
  readonly adaptive?: SchedulerOptions["adaptive"];
  /** How the wait-target controller works, for priorities with `targetWaitMs`. */
  readonly waitTargets?: WaitTargetOptions;
}

/**
 * A chat load that changes through the run: `ratesPerSec[k]` during step `k` (each `stepMs` long),
 * starting again from the first rate after the last one.
 *
 * @example
 * const day: ScenarioRateSchedule = { stepMs: 3_600_000, ratesPerSec: [0.2, 0.2, 0.5, 2, 4, 4, 3, 1] };
 */
export interface ScenarioRateSchedule {
  readonly stepMs: number;
  readonly ratesPerSec: readonly number[];
}

/**
 * Chat users, each with a long system prompt of their own: every chat request belongs to one of `count`
 * users (uniformly drawn), and its prompt starts with that user's `tokens`-token system prompt (on top of
 * `promptTokens`). A replica's prefix cache can then skip that part of the prefill.
 */
export interface ScenarioSystemPrompts {
  readonly count: number;
  readonly tokens: number;
}

/** One replica of a pool. */
export interface ScenarioReplica {
  /** @default `r<index>` */
  readonly id?: string;
  /** Sequences its engine serves at once; more requests wait in its engine's queue. @default `upstream.parallel` */
  readonly parallel?: number;
  /** Requests the pool lets it have in flight (running or in its engine's queue). @default its `parallel` */
  readonly limit?: number;
  /** How fast it runs against `upstream`'s timings: `0.5` takes twice as long for everything. @default 1 */
  readonly speed?: number;
  /** Tokens its prefix cache holds. @default `pool.cacheTokens` */
  readonly cacheTokens?: number;
}

/** Several replicas of the model behind the gateway, and the router that picks one for each request. */
export interface ScenarioPool {
  /** @default "prefix" */
  readonly routing?: Routing;
  /** `prefix` only: how far over its share of the load a replica may go before a key spills. @default 1.25 */
  readonly loadFactor?: number;
  /** `prefix` only: points per replica on the hash ring. @default 100 */
  readonly virtualNodes?: number;
  /** Tokens per KV block of the prefix caches. @default 16 */
  readonly blockTokens?: number;
  /** Tokens each replica's prefix cache holds, unless the replica says otherwise; 0 for none. @default 0 */
  readonly cacheTokens?: number;
  /** A number of identical replicas, or each one's settings. */
  readonly replicas: number | readonly ScenarioReplica[];
  /**
   * Adaptive replica limits, as `createPool` gives a replica with `maxConcurrency: { initial, min, max }`:
   * each starts at its `limit` and moves within `[min, max]` by core's controller (`tunables`: core's
   * `adaptive` options), fed by its engine's queue every `scrapeMs` (`engine`: the pool's
   * `signals.limit`, or `false` for latency and errors only). The gateway's limit follows the replicas'
   * sum (capped by `gateway.maxConcurrency`), and a request that finds no replica with room waits for
   * one, as in the pool. @default none (fixed limits)
   */
  readonly adaptive?: ScenarioPoolAdaptive;
  /**
   * Each replica's streaming speed (tokens after the first over the time since the first, per request),
   * weighing its limit in `prefix`'s load bound, as the pool's `speed` option does; `false` turns it off.
   * @default {}
   */
  readonly speed?: SpeedOptions | false;
}

/** See {@link ScenarioPool.adaptive}. */
export interface ScenarioPoolAdaptive {
  /** The lowest a replica's limit goes. @default 1 */
  readonly min?: number;
  /** The highest a replica's limit goes. @default twice the highest replica `limit` */
  readonly max?: number;
  /** Virtual ms between two readings of each engine's queue. @default 1_000 */
  readonly scrapeMs?: number;
  /** When the engine counts as over (the pool's `signals.limit`), or `false`. @default {} */
  readonly engine?: { readonly maxWaiting?: number; readonly maxKvCacheUsage?: number } | false;
  /** Core's `adaptive` tunables for each replica's limit. @default core's */
  readonly tunables?: AdaptiveOptions;
}

/** Chat users: Poisson arrivals, short prompts, a front end that gives up and retries. */
export interface ScenarioChat {
  /** Mean arrivals per second (Poisson); `0` means no chat traffic. @default 1 */
  readonly ratePerSec?: number;
  /** A rate that changes every `stepMs` instead of `ratePerSec` (give one or the other). */
  readonly rateSchedule?: ScenarioRateSchedule;
  /** The scheduler priority chat requests ask for. @default "interactive" */
  readonly priority?: string;
  /** The tenant (API key) of chat requests. @default "chat" */
  readonly tenant?: string;
  /** Prompt length in tokens. @default { min: 20, max: 200 } */
  readonly promptTokens?: Range;
  /** Tokens generated (`max_tokens`). @default { min: 16, max: 64 } */
  readonly maxTokens?: Range;
  /**
   * The front end gives up on an attempt that has no first token this long after it was sent, cancels
   * it and retries. `"Infinity"` never gives up.
   * @default 10_000
   */
  readonly timeoutMs?: number | "Infinity";
  /** Retries after a timeout or an error answer (429, 5xx) before the user gives up. @default 2 */
  readonly retries?: number;
  /** Pause before a retry, ms (a 429's `retry-after-ms` is used instead when it is given). @default 1_000 */
  readonly retryDelayMs?: number;
  /** Users with a system prompt of their own each. @default none (no shared prefix) */
  readonly systemPrompts?: ScenarioSystemPrompts;
}

/** One tenant's batch job: `items` requests sent from `startMs`, spread evenly over `spreadMs`. */
export interface ScenarioBatchTenant {
  /** The tenant (API key) name; unique. */
  readonly name: string;
  /** Number of requests in the job. */
  readonly items: number;
  /** When the first item is sent, ms after the start. @default 0 */
  readonly startMs?: number;
  /** Items are sent evenly over this many ms; `0` sends them all at once (a flood). @default 0 */
  readonly spreadMs?: number;
  /** Prompt length in tokens. @default { min: 200, max: 800 } */
  readonly promptTokens?: Range;
  /** Tokens generated (`max_tokens`). @default { min: 100, max: 300 } */
  readonly maxTokens?: Range;
}

/**
 * Batch jobs with completion windows, run through the batch layer (`@llm-scheduler/batches`, memory
 * store) on the same scheduler: `count` batches arrive as a Poisson process of `ratePerMin` from
 * `startMs`, each from one of `tenants` (drawn uniformly) with a size and a window drawn from their ranges.
 * Read by `simulateBatchWindows()` (`pnpm bench batch-deadlines`); `simulate()` leaves them out.
 */
export interface ScenarioBatchJobs {
  /** Batches in the run. */
  readonly count: number;
  /** Mean arrivals per minute (Poisson). */
  readonly ratePerMin: number;
  /** When the arrivals start, ms after the start. @default 0 */
  readonly startMs?: number;
  /** The tenants the batches come from, each drawn uniformly. @default ["jobs"] */
  readonly tenants?: readonly string[];
  /** Items per batch. @default { min: 10, max: 100 } */
  readonly items?: Range;
  /** Completion window of each batch, ms. @default { min: 300_000, max: 1_800_000 } */
  readonly completionWindowMs?: Range;
  /** Prompt length in tokens. @default { min: 200, max: 800 } */
  readonly promptTokens?: Range;
  /** Tokens generated (`max_tokens`). @default { min: 100, max: 300 } */
  readonly maxTokens?: Range;
}

/** Offline batch jobs. */
export interface ScenarioBatch {
  /** The scheduler priority batch requests ask for. @default "batch" */
  readonly priority?: string;
  /** Client timeout of a batch request, ms. @default "Infinity" */
  readonly timeoutMs?: number | "Infinity";
  /** Retries after a timeout or an error answer. @default 3 */
  readonly retries?: number;
  /** Pause before a retry, ms (a 429's `retry-after-ms` is used instead when it is given). @default 1_000 */
  readonly retryDelayMs?: number;
  /** The jobs, one per tenant. @default [] */
  readonly tenants?: readonly ScenarioBatchTenant[];
  /** Batches with completion windows, through the batch layer. @default none */
  readonly jobs?: ScenarioBatchJobs;
}

/** What `--sweep` optimises: constraints first, then the most batch throughput. */
export interface ScenarioGoal {
  /** Interactive queue wait p95 must be at most this, ms. @default 1_000 */
  readonly interactiveWaitP95Ms?: number;
  /** Interactive time to first token p95 must be at most this, ms. @default "Infinity" (no constraint) */
  readonly interactiveTtftP95Ms?: number | "Infinity";
  /** At most this many chat requests may go unanswered. @default "Infinity" (no constraint) */
  readonly maxUnanswered?: number | "Infinity";
}

/**
 * A workload and a setup to replay it against, as stored in a scenario JSON file. Only `durationMs` is
 * required; every other field has a default. Unknown fields are errors, so typos do not go unnoticed.
 *
 * @example
 * const scenario: Scenario = {
 *   durationMs: 60_000,
 *   chat: { ratePerSec: 2, timeoutMs: 3_000 },
 *   batch: { tenants: [{ name: "indexer", items: 500 }] },
 * };
 */
export interface Scenario {
  /** A short name shown in tables and reports. @default "scenario" */
  readonly name?: string;
  /** Free text. @default "" */
  readonly description?: string;
  /** Seed of every random draw (arrivals, sizes); the same seed gives the same run. @default 1 */
  readonly seed?: number;
  /** Chat requests arrive during `[0, durationMs)`; the run lasts until every request is settled. */
  readonly durationMs: number;
  readonly upstream?: ScenarioUpstream;
  /** Replicas of the server behind a router, instead of one server. @default none */
  readonly pool?: ScenarioPool;
  readonly gateway?: ScenarioGateway;
  readonly scheduler?: ScenarioScheduler;
  readonly chat?: ScenarioChat;
  readonly batch?: ScenarioBatch;
  readonly goal?: ScenarioGoal;
}

/** A range after validation. */
export interface ResolvedRange {
  readonly min: number;
  readonly max: number;
}

export interface ResolvedChat {
  /** The mean rate over the run (with a schedule, the mean of its rates). */
  readonly ratePerSec: number;
  readonly rateSchedule: ScenarioRateSchedule | null;
  readonly priority: string;
  readonly tenant: string;
  readonly promptTokens: ResolvedRange;
  readonly maxTokens: ResolvedRange;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly retryDelayMs: number;
  readonly systemPrompts: ScenarioSystemPrompts | null;
}

export interface ResolvedReplica {
  readonly id: string;
  readonly parallel: number;
  readonly limit: number;
  readonly speed: number;
  readonly cacheTokens: number;
}

export interface ResolvedPool {
  readonly routing: Routing;
  readonly loadFactor: number;
  readonly virtualNodes: number;
  readonly blockTokens: number;
  readonly replicas: readonly ResolvedReplica[];
  readonly adaptive: ResolvedPoolAdaptive | undefined;
  /** The speed estimates' options; `undefined` with `speed: false`. */
  readonly speed: Required<SpeedOptions> | undefined;
}

export interface ResolvedPoolAdaptive {
  readonly min: number;
  readonly max: number;
  readonly scrapeMs: number;
  readonly engine: Required<EngineLoadOptions> | undefined;
  readonly tunables: AdaptiveOptions;
}

export interface ResolvedBatchTenant {
  readonly name: string;
  readonly items: number;
  readonly startMs: number;
  readonly spreadMs: number;
  readonly promptTokens: ResolvedRange;
  readonly maxTokens: ResolvedRange;
}

export interface ResolvedBatchJobs {
  readonly count: number;
  readonly ratePerMin: number;
  readonly startMs: number;
  readonly tenants: readonly string[];
  readonly items: ResolvedRange;
  readonly completionWindowMs: ResolvedRange;
  readonly promptTokens: ResolvedRange;
  readonly maxTokens: ResolvedRange;
}

export interface ResolvedBatch {
  readonly priority: string;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly retryDelayMs: number;
  readonly tenants: readonly ResolvedBatchTenant[];
  readonly jobs: ResolvedBatchJobs | null;
}

export interface ResolvedGoal {
  readonly interactiveWaitP95Ms: number;
  readonly interactiveTtftP95Ms: number;
  readonly maxUnanswered: number;
}

/** A validated scenario with every default filled in. */
export interface ResolvedScenario {
  readonly name: string;
  readonly description: string;
  readonly seed: number;
  readonly durationMs: number;
  readonly upstream: ResolvedLatencyOptions;
  /** The server's real capacity, when the scenario sets one. */
  readonly capacity: CapacityOptions | undefined;
  /** Replicas behind a router, when the scenario sets a pool (each with `upstream`'s timings). */
  readonly pool: ResolvedPool | undefined;
  /** The FIFO baseline's limit (an adaptive range's `initial`). */
  readonly maxConcurrency: number;
  /** Ready for `createScheduler({ ...scheduler, clock })`; includes `maxConcurrency`. */
  readonly scheduler: SchedulerOptions;
  readonly chat: ResolvedChat;
  readonly batch: ResolvedBatch;
  readonly goal: ResolvedGoal;
}

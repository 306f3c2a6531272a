import type { AdaptiveOptions, SchedulerOptions } from "@llm-scheduler/core";
import {
  custom,
  type InferShape,
  integer,
  number,
  object,
  oneOf,
  positive,
  type Resolved,
  required,
  type Shape,
  string,
} from "@llm-scheduler/core/kit";
import { type EngineLoadOptions, ROUTINGS, resolveSpeed, type SpeedOptions } from "@llm-scheduler/pool";
import { LATENCY_SCHEMA, type ResolvedLatencyOptions } from "@llm-scheduler/upstream-sim";
import type { CapacityOptions } from "./capacity.js";
import { above, list, orInfinity, type ResolvedRange, range, text } from "./fields.js";
import { SCHEDULER_SECTION } from "./scenario-scheduler.js";

export type { Range, ResolvedRange } from "./fields.js";

/*
 * A scenario file's fields, declared once: the types below, the checks (unknown keys refused with a
 * did-you-mean, a path in every message), the defaults and the README's scenario table come from here.
 * Every number has a range wide enough for real traffic that still catches a slipped exponent.
 */
const DAY = 86_400_000;
const YEAR = 365 * DAY;
const slots = (doc: string, shownDefault?: string) => integer(1, 100_000, { doc, shownDefault });
const tokens = (doc: string, shownDefault?: string) => integer(0, 10_000_000, { doc, shownDefault });
const delay = (fallback: number, doc: string) => number(0, 7 * DAY, { default: fallback, doc });
const retries = (fallback: number) =>
  integer(0, 100, { default: fallback, doc: "retries after a timeout or an error answer (429, 5xx)" });

const CAPACITY = {
  knee: required(slots("busy sequences past which every step slows down steeply")),
  hardLimit: slots(
    "in flight (busy and waiting inside the server) at which it answers 503",
    "twice the knee",
  ),
  steepness: number(0, 1_000, {
    default: 4,
    doc: "what each sequence past the knee adds to the step time, over the knee",
  }),
  gentle: number(0, 1_000, {
    default: 0.1,
    doc: "how much slower a step is with the knee's full batch than alone",
  }),
  changes: list(
    object(
      {
        atMs: number(0, YEAR, { default: 0, doc: "when, in ms since the start" }),
        scale: positive(1_000, { default: 1, doc: "times the knee and the hard limit" }),
      },
      { doc: "" },
    ),
    0,
    Number.POSITIVE_INFINITY,
    {
      shownRange: "`[{ atMs = 0, scale = 1 }]`: `atMs` up to 365 days, `scale` in (0, 1000]",
      shownDefault: "none",
      doc: "changes of capacity mid-run: from `atMs`, `scale` times the knee and the hard limit (a replica lost, or back)",
    },
  ),
};

const UPSTREAM = {
  ...LATENCY_SCHEMA,
  capacity: object(CAPACITY, {
    shownDefault: "none (it never refuses)",
    doc: "what the server can really take, which the gateway is not told (see below)",
  }),
};

const REPLICA = {
  id: string(Number.POSITIVE_INFINITY, { shownDefault: "`r<index>`", doc: "its name; unique" }),
  parallel: slots(
    "sequences its engine serves at once; more wait in its engine's queue",
    "`upstream.parallel`",
  ),
  limit: slots(
    "requests the pool lets it have in flight (running or in its engine's queue)",
    "its `parallel`",
  ),
  speed: positive(100, {
    default: 1,
    doc: "how fast it runs against `upstream`'s timings: `0.5` takes twice as long",
  }),
  cacheTokens: tokens("tokens its prefix cache holds", "`pool.cacheTokens`"),
};

/** Adaptive replica limits: the values are checked here, `engine` and `tunables` by the pool and core. */
const POOL_ADAPTIVE = {
  min: slots("the lowest a replica's limit goes", "1"),
  max: slots("the highest a replica's limit goes", "twice the highest replica `limit`"),
  scrapeMs: number(10, 3_600_000, {
    default: 1_000,
    doc: "virtual ms between two readings of each engine's queue",
  }),
  engine: custom<EngineLoadOptions | false>({
    check: (_path, value) => value as EngineLoadOptions | false,
    range: "`{ maxWaiting?, maxKvCacheUsage? }` or `false`",
    json: undefined,
    shownDefault: "`{}`",
    doc: "when an engine counts as over (the pool's `signals.limit`), or `false` for latency and errors only",
  }),
  tunables: custom<AdaptiveOptions>({
    check: (_path, value) => value as AdaptiveOptions,
    range: "core's `adaptive` options",
    json: undefined,
    shownDefault: "core's",
    doc: "core's `adaptive` tunables for each replica's limit",
  }),
};

const POOL = {
  routing: oneOf(ROUTINGS, {
    default: "prefix",
    doc: "the router of `@llm-scheduler/pool` that picks a replica",
  }),
  loadFactor: above(1, 100, {
    default: 1.25,
    doc: "`prefix` only: how far over its share of the load a replica may go before a key spills",
  }),
  virtualNodes: integer(1, 4_096, {
    default: 100,
    doc: "`prefix` only: points per replica on the hash ring",
  }),
  blockTokens: integer(1, 1_024, { default: 16, doc: "tokens per KV block of the prefix caches" }),
  cacheTokens: integer(0, 10_000_000, {
    default: 0,
    doc: "tokens each replica's prefix cache holds (0: none), unless the replica says otherwise",
  }),
  adaptive: object(POOL_ADAPTIVE, {
    shownDefault: "none (fixed limits)",
    doc: "adaptive replica limits: each starts at its `limit`, moves within `[min, max]` by core's controller fed by its engine's queue every `scrapeMs`; the gateway's limit follows their sum",
  }),
  speed: custom<SpeedOptions | false>({
    check: (path, value) => {
      resolveSpeed(path, value);
      return value as SpeedOptions | false;
    },
    range: "`{ halfLife?, minFactor?, minSampleMs? }` or `false`",
    json: undefined,
    shownDefault: "`{}`",
    doc: "each replica's streaming speed (tokens after the first over the time since it), weighing its limit in `prefix`'s load bound, as the pool's `speed` option does; `false`: off",
  }),
  replicas: required(
    custom<number | readonly InferShape<typeof REPLICA>[]>({
      check: (path, value) =>
        typeof value === "number"
          ? integer(1, 1_000, { doc: "" }).check(path, value)
          : REPLICAS.check(path, value),
      range: "1 to 1000, or an array of 1 to 1000 replicas",
      shownRange:
        "1 to 1,000, or `[{ id = r<i>, parallel = upstream.parallel (1 to 100,000), limit = its parallel (1 to 100,000), speed = 1 (in (0, 100]), cacheTokens = pool.cacheTokens }]`",
      json: undefined,
      doc: "a number of identical replicas, or each one's settings (ids unique); `speed` `0.5` takes twice as long",
    }),
  ),
};
const REPLICAS = list(object(REPLICA, { doc: "" }), 1, 1_000, { doc: "" });

const SYSTEM_PROMPTS = {
  count: required(integer(1, 10_000_000, { doc: "users, each with a system prompt of their own" })),
  tokens: required(integer(1, 10_000_000, { doc: "tokens of each user's system prompt" })),
};

const RATE_SCHEDULE = {
  stepMs: required(number(1, YEAR, { doc: "how long each rate lasts, ms" })),
  ratesPerSec: required(list(number(0, 100_000, { doc: "" }), 1, 10_000, { doc: "the rate of each step" })),
};

const CHAT = {
  ratePerSec: number(0, 100_000, {
    default: 1,
    doc: "mean arrivals per second (Poisson); `0` for none; leave out with `rateSchedule`",
  }),
  rateSchedule: object(RATE_SCHEDULE, {
    shownDefault: "none",
    doc: "`{ stepMs, ratesPerSec: [...] }`: the rate of each step (such as each hour), from the first again after the last",
  }),
  priority: string(Number.POSITIVE_INFINITY, {
    default: "interactive",
    doc: "the scheduler priority chat requests ask for",
  }),
  tenant: string(Number.POSITIVE_INFINITY, { default: "chat", doc: "the chat application's tenant" }),
  promptTokens: range(0, { min: 20, max: 200 }, "prompt length in tokens"),
  maxTokens: range(1, { min: 16, max: 64 }, "tokens generated (`max_tokens`)"),
  timeoutMs: orInfinity(
    positive(7 * DAY, {
      default: 10_000,
      doc: 'front-end timeout to the first token; `"Infinity"` never gives up',
    }),
  ),
  retries: retries(2),
  retryDelayMs: delay(1_000, "pause before a retry (a 429's `retry-after-ms` wins)"),
  systemPrompts: object(SYSTEM_PROMPTS, {
    shownDefault: "none",
    doc: "each chat request belongs to one of `count` users (uniform); its prompt starts with that user's `tokens`-token system prompt",
  }),
};

const BATCH_TENANT = {
  name: required(string(Number.POSITIVE_INFINITY, { doc: "the tenant; unique, and not chat's" })),
  items: required(tokens("requests in the job")),
  startMs: number(0, YEAR, { default: 0, doc: "when the first item is sent, ms after the start" }),
  spreadMs: number(0, YEAR, {
    default: 0,
    doc: "items are sent evenly over this many ms; `0` sends them at once",
  }),
  promptTokens: range(0, { min: 200, max: 800 }, "prompt length in tokens"),
  maxTokens: range(1, { min: 100, max: 300 }, "tokens generated (`max_tokens`)"),
};

const JOBS = {
  count: required(integer(1, 100_000, { doc: "batches in the run" })),
  ratePerMin: required(positive(100_000, { doc: "mean arrivals per minute (Poisson)" })),
  startMs: number(0, YEAR, { default: 0, doc: "when the arrivals start, ms after the start" }),
  tenants: list(string(Number.POSITIVE_INFINITY, { doc: "" }), 1, 1_000, {
    default: ["jobs"],
    doc: "the tenants the batches come from, each drawn uniformly",
  }),
  items: range(1, { min: 10, max: 100 }, "items per batch (at most 50,000)"),
  completionWindowMs: range(1_000, { min: 300_000, max: 1_800_000 }, "completion window of each batch, ms"),
  promptTokens: range(0, { min: 200, max: 800 }, "prompt length in tokens"),
  maxTokens: range(1, { min: 100, max: 300 }, "tokens generated (`max_tokens`)"),
};

const BATCH = {
  priority: string(Number.POSITIVE_INFINITY, {
    default: "batch",
    doc: "the scheduler priority batch requests ask for, not chat's",
  }),
  timeoutMs: orInfinity(
    positive(7 * DAY, { default: Number.POSITIVE_INFINITY, doc: "client timeout of a batch request" }),
  ),
  retries: retries(3),
  retryDelayMs: delay(1_000, "pause before a retry (a 429's `retry-after-ms` wins)"),
  tenants: list(object(BATCH_TENANT, { doc: "" }), 0, Number.POSITIVE_INFINITY, {
    default: [],
    shownRange:
      "`[{ name, items, startMs = 0, spreadMs = 0, promptTokens = { 200..800 }, maxTokens = { 100..300 } }]`; names unique",
    doc: "the jobs, one per tenant: `items` requests from `startMs`, spread over `spreadMs`",
  }),
  jobs: object(JOBS, {
    shownDefault: "none",
    doc: "batches with completion windows, run through the batch layer by `simulateBatchWindows()`; `simulate()` leaves them out",
  }),
};

const GOAL = {
  interactiveWaitP95Ms: orInfinity(delay(1_000, "`--sweep` constraint: interactive queue wait p95, ms")),
  interactiveTtftP95Ms: orInfinity(
    delay(Number.POSITIVE_INFINITY, "`--sweep` constraint: interactive time to first token p95, ms"),
  ),
  maxUnanswered: orInfinity(
    integer(0, 10_000_000, {
      default: Number.POSITIVE_INFINITY,
      doc: "`--sweep` constraint: chat requests never answered",
    }),
  ),
};

const SLOTS = integer(1, 100_000, { doc: "" });
const LIMIT_RANGE = { initial: SLOTS, min: SLOTS, max: SLOTS };

const GATEWAY = {
  maxConcurrency: custom<number | InferShape<typeof LIMIT_RANGE>>({
    check: (path, value) =>
      typeof value === "object" && value !== null
        ? object(LIMIT_RANGE, { doc: "" }).check(path, value)
        : SLOTS.check(path, value),
    range: "1 to 100,000, or `{ initial, min, max }`",
    json: undefined,
    shownDefault: "`upstream.parallel`",
    doc: "requests in flight upstream; `{ initial, min, max }` is the scheduler's adaptive limit (FIFO gets `initial`)",
  }),
};

/** A scenario file, field by field. */
export const SCENARIO = {
  $schema: text({ shownDefault: "none", doc: "the JSON Schema an editor checks the file against" }),
  name: string(Number.POSITIVE_INFINITY, {
    default: "scenario",
    doc: "a short name shown in tables and reports",
  }),
  description: text({ default: "", doc: "free text" }),
  seed: integer(0, 2 ** 32 - 1, {
    default: 1,
    doc: "every random draw (arrivals, lengths); same seed, same run",
  }),
  durationMs: required(
    positive(YEAR, {
      doc: "chat users arrive during `[0, durationMs)`; the run lasts until every request has settled",
    }),
  ),
  upstream: object(UPSTREAM, {
    doc: "how fast the simulated LLM server is (the model of `@llm-scheduler/upstream-sim`)",
  }),
  pool: object(POOL, { shownDefault: "none", doc: "replicas behind a router instead of one server" }),
  gateway: object(GATEWAY, { doc: "the gateway in front of the server" }),
  scheduler: SCHEDULER_SECTION,
  chat: object(CHAT, {
    doc: "chat users: Poisson arrivals, short prompts, a front end that gives up and retries",
  }),
  batch: object(BATCH, { doc: "offline batch jobs" }),
  goal: object(GOAL, { doc: "what `--sweep` optimises: constraints first, then the most batch throughput" }),
};

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
export type Scenario = InferShape<typeof SCENARIO>;
export type ScenarioUpstream = InferShape<typeof UPSTREAM>;
export type ScenarioCapacity = InferShape<typeof CAPACITY>;
export type ScenarioPool = InferShape<typeof POOL>;
export type ScenarioReplica = InferShape<typeof REPLICA>;
export type ScenarioPoolAdaptive = InferShape<typeof POOL_ADAPTIVE>;
export type ScenarioGateway = InferShape<typeof GATEWAY>;
export type ScenarioChat = InferShape<typeof CHAT>;
export type ScenarioRateSchedule = InferShape<typeof RATE_SCHEDULE>;
export type ScenarioSystemPrompts = InferShape<typeof SYSTEM_PROMPTS>;
export type ScenarioBatch = InferShape<typeof BATCH>;
export type ScenarioBatchTenant = InferShape<typeof BATCH_TENANT>;
export type ScenarioBatchJobs = InferShape<typeof JOBS>;
export type ScenarioGoal = InferShape<typeof GOAL>;
export type { ScenarioScheduler } from "./scenario-scheduler.js";

/** Each section's fields, for the code that fills in their defaults. */
export const SECTIONS = { CAPACITY, POOL, REPLICA, CHAT, BATCH, BATCH_TENANT, JOBS, GOAL, LIMIT_RANGE };

/** `S` with its defaults, the range fields `R` as `{ min, max }`. */
type Ranged<S extends Shape, R extends keyof S> = Omit<Resolved<S>, R> & { readonly [K in R]: ResolvedRange };

/** `chat` resolved; `ratePerSec` is the mean rate over the run (with a schedule, the mean of its rates). */
export type ResolvedChat = Omit<
  Ranged<typeof CHAT, "promptTokens" | "maxTokens">,
  "timeoutMs" | "rateSchedule" | "systemPrompts"
> & {
  readonly timeoutMs: number;
  readonly rateSchedule: ScenarioRateSchedule | null;
  readonly systemPrompts: ScenarioSystemPrompts | null;
};
export type ResolvedReplica = { readonly [K in keyof ScenarioReplica]-?: NonNullable<ScenarioReplica[K]> };
export type ResolvedPool = Omit<Resolved<typeof POOL>, "replicas" | "cacheTokens" | "adaptive" | "speed"> & {
  readonly replicas: readonly ResolvedReplica[];
  readonly adaptive: ResolvedPoolAdaptive | undefined;
  /** The speed estimates' options; `undefined` with `speed: false`. */
  readonly speed: Required<SpeedOptions> | undefined;
};
export interface ResolvedPoolAdaptive {
  readonly min: number;
  readonly max: number;
  readonly scrapeMs: number;
  readonly engine: Required<EngineLoadOptions> | undefined;
  readonly tunables: AdaptiveOptions;
}
export type ResolvedBatchTenant = Ranged<typeof BATCH_TENANT, "promptTokens" | "maxTokens">;
export type ResolvedBatchJobs = Ranged<
  typeof JOBS,
  "items" | "completionWindowMs" | "promptTokens" | "maxTokens"
>;
export type ResolvedBatch = Omit<Resolved<typeof BATCH>, "timeoutMs" | "tenants" | "jobs"> & {
  readonly timeoutMs: number;
  readonly tenants: readonly ResolvedBatchTenant[];
  readonly jobs: ResolvedBatchJobs | null;
};
export type ResolvedGoal = { readonly [K in keyof typeof GOAL]: number };

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

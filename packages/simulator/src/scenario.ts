import type { Meta } from "@llm-scheduler/core";
import {
  custom,
  type Infer,
  type InferShape,
  integer,
  invalidOption,
  list,
  number,
  object,
  positive,
  required,
  SCHEDULER_SCHEMA,
  string,
  text,
} from "@llm-scheduler/core/kit";
import { POOL_SCHEMA, SIGNALS_SCHEMA } from "@llm-scheduler/pool";
import { LATENCY_SCHEMA, UPSTREAM_SCHEMA } from "@llm-scheduler/upstream-sim";
import { orInfinity, range } from "./fields.js";
import { SCHEDULER_SECTION } from "./scenario-scheduler.js";

/*
 * A scenario file's fields, declared once: the types below, the checks (unknown keys refused with a
 * did-you-mean, a path in every message), the defaults and the README's scenario table come from here.
 * Every number has a range wide enough for real traffic that still catches a slipped exponent.
 */
const DAY = 86_400_000;
const YEAR = 365 * DAY;
const slots = (doc: string, shownDefault?: string) => integer(1, 100_000, { doc, shownDefault });
const tokens = (doc: string, shownDefault?: string) => integer(0, 10_000_000, { doc, shownDefault });
const retries = (fallback: number) =>
  integer(0, 100, { default: fallback, doc: "retries after a timeout or an error answer (429, 5xx)" });
/** A client's timeout of one request; `"Infinity"` never gives up. */
const timeout = (fallback: number, doc: string) => orInfinity(positive(7 * DAY, { default: fallback, doc }));
const RETRY_DELAY_MS = number(0, 7 * DAY, {
  default: 1_000,
  doc: "pause before a retry (a 429's `retry-after-ms` wins)",
});
/** A name (a tenant, a priority): a string of any length. */
const label = <M extends Meta<string>>(meta: M) => string(Number.POSITIVE_INFINITY, meta);
/** A moment of the run, in ms after its start. */
const moment = (doc: string) => number(0, YEAR, { default: 0, doc: `${doc}, ms after the start` });
const prompt = (min: number, max: number) => range(0, min, max, "prompt length in tokens");
const answer = (min: number, max: number) => range(1, min, max, "tokens generated (`max_tokens`)");

export const CHANGE = {
  atMs: moment("when"),
  scale: positive(1_000, { default: 1, doc: "times the knee and the hard limit" }),
};

export const CAPACITY = {
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
  changes: list(object(CHANGE, { doc: "" }), 0, Number.POSITIVE_INFINITY, {
    default: [],
    shownDefault: "none",
    doc: "changes of capacity mid-run: from `atMs`, `scale` times the knee and the hard limit (a replica lost, or back)",
  }),
};

const UPSTREAM = {
  ...LATENCY_SCHEMA,
  capacity: object(CAPACITY, {
    shownDefault: "none (it never refuses)",
    doc: "what the server can really take, which the gateway is not told (see below)",
  }),
};

export const REPLICA = {
  id: label({ shownDefault: "`r<index>`", doc: "its name; unique" }),
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
const REPLICAS = list(object(REPLICA, { doc: "" }), 1, 1_000, { doc: "" });

/** Adaptive replica limits: `engine` is the pool's node, `tunables` core's. */
export const POOL_ADAPTIVE = {
  min: integer(1, 100_000, { default: 1, doc: "the lowest a replica's limit goes" }),
  max: slots("the highest a replica's limit goes", "twice the highest replica `limit`"),
  scrapeMs: number(10, 3_600_000, {
    default: 1_000,
    doc: "virtual ms between two readings of each engine's queue",
  }),
  engine: SIGNALS_SCHEMA.limit,
  tunables: {
    ...SCHEDULER_SCHEMA.adaptive,
    default: {},
    shownRange: "core's `adaptive` options",
    doc: "core's `adaptive` tunables for each replica's limit",
  },
};

export const POOL = {
  routing: POOL_SCHEMA.routing,
  loadFactor: custom<number>({
    check: (path, value) => {
      if (typeof value === "number" && value > 1 && value <= 100) return value;
      throw invalidOption(path, "a number in (1, 100]", value);
    },
    range: "a number in (1, 100]",
    json: { type: "number", exclusiveMinimum: 1, maximum: 100 },
    default: 1.25,
    doc: "`prefix` only: how far over its share of the load a replica may go before a key spills",
  }),
  virtualNodes: integer(1, 4_096, {
    default: 100,
    doc: "`prefix` only: points per replica on the hash ring",
  }),
  blockTokens: UPSTREAM_SCHEMA.blockTokens,
  cacheTokens: integer(0, 10_000_000, {
    default: 0,
    doc: "tokens each replica's prefix cache holds (0: none), unless the replica says otherwise",
  }),
  adaptive: object(POOL_ADAPTIVE, {
    shownDefault: "none (fixed limits)",
    doc: "adaptive replica limits: each starts at its `limit`, moves within `[min, max]` by core's controller fed by its engine's queue every `scrapeMs`; the gateway's limit follows their sum",
  }),
  speed: { ...POOL_SCHEMA.speed, shownRange: "`{ halfLife?, minFactor?, minSampleMs? }` or `false`" },
  replicas: required({
    ...custom<number | readonly InferShape<typeof REPLICA>[]>({
      check: (path, value) =>
        typeof value === "number"
          ? integer(1, 1_000, { doc: "" }).check(path, value)
          : REPLICAS.check(path, value),
      range: "1 to 1000, or an array of 1 to 1000 replicas",
      json: undefined,
      doc: "a number of identical replicas, or each one's settings (ids unique)",
    }),
    items: REPLICAS.items,
  }),
};

const SYSTEM_PROMPTS = {
  count: required(integer(1, 10_000_000, { doc: "users, each with a system prompt of their own" })),
  tokens: required(integer(1, 10_000_000, { doc: "tokens of each user's system prompt" })),
};

const RATE_SCHEDULE = {
  stepMs: required(number(1, YEAR, { doc: "how long each rate lasts, ms" })),
  ratesPerSec: required(list(number(0, 100_000, { doc: "" }), 1, 10_000, { doc: "the rate of each step" })),
};

export const CHAT = {
  ratePerSec: number(0, 100_000, {
    default: 1,
    doc: "mean arrivals per second (Poisson); `0` for none; leave out with `rateSchedule`",
  }),
  rateSchedule: object(RATE_SCHEDULE, {
    shownDefault: "none",
    doc: "`{ stepMs, ratesPerSec: [...] }`: the rate of each step (such as each hour), from the first again after the last",
  }),
  priority: label({ default: "interactive", doc: "the scheduler priority chat requests ask for" }),
  tenant: label({ default: "chat", doc: "the chat application's tenant" }),
  promptTokens: prompt(20, 200),
  maxTokens: answer(16, 64),
  timeoutMs: timeout(10_000, 'front-end timeout to the first token; `"Infinity"` never gives up'),
  retries: retries(2),
  retryDelayMs: RETRY_DELAY_MS,
  systemPrompts: object(SYSTEM_PROMPTS, {
    shownDefault: "none",
    doc: "each chat request belongs to one of `count` users (uniform); its prompt starts with that user's `tokens`-token system prompt",
  }),
};

/** How long a batch request's prompt and answer are, in a job or a batch. */
const BATCH_LENGTHS = { promptTokens: prompt(200, 800), maxTokens: answer(100, 300) };

export const BATCH_TENANT = {
  name: required(label({ doc: "the tenant; unique, and not chat's" })),
  items: required(tokens("requests in the job")),
  startMs: moment("when the first item is sent"),
  spreadMs: number(0, YEAR, {
    default: 0,
    doc: "items are sent evenly over this many ms; `0` sends them at once",
  }),
  ...BATCH_LENGTHS,
};

export const JOBS = {
  count: required(integer(1, 100_000, { doc: "batches in the run" })),
  ratePerMin: required(positive(100_000, { doc: "mean arrivals per minute (Poisson)" })),
  startMs: moment("when the arrivals start"),
  tenants: list(label({ doc: "" }), 1, 1_000, {
    default: ["jobs"],
    doc: "the tenants the batches come from, each drawn uniformly",
  }),
  items: range(1, 10, 100, "items per batch (at most 50,000)"),
  completionWindowMs: range(1_000, 300_000, 1_800_000, "completion window of each batch, ms"),
  ...BATCH_LENGTHS,
};

export const BATCH = {
  priority: label({ default: "batch", doc: "the scheduler priority batch requests ask for, not chat's" }),
  timeoutMs: timeout(Number.POSITIVE_INFINITY, "client timeout of a batch request"),
  retries: retries(3),
  retryDelayMs: RETRY_DELAY_MS,
  tenants: list(object(BATCH_TENANT, { doc: "" }), 0, Number.POSITIVE_INFINITY, {
    default: [],
    doc: "the jobs, one per tenant: `items` requests from `startMs`, spread over `spreadMs`",
  }),
  jobs: object(JOBS, {
    shownDefault: "none",
    doc: "batches with completion windows, run through the batch layer by `simulateBatchWindows()`; `simulate()` leaves them out",
  }),
};

const goalMs = (fallback: number, doc: string) =>
  orInfinity(number(0, 7 * DAY, { default: fallback, doc: `\`--sweep\` constraint: ${doc}` }));
export const GOAL = {
  interactiveWaitP95Ms: goalMs(1_000, "interactive queue wait p95, ms"),
  interactiveTtftP95Ms: goalMs(Number.POSITIVE_INFINITY, "interactive time to first token p95, ms"),
  maxUnanswered: orInfinity(
    integer(0, 10_000_000, {
      default: Number.POSITIVE_INFINITY,
      doc: "`--sweep` constraint: chat requests never answered",
    }),
  ),
};

const SLOTS = slots("");
const LIMIT_RANGE = object({ initial: SLOTS, min: SLOTS, max: SLOTS }, { doc: "" });

const GATEWAY = {
  maxConcurrency: custom<number | Infer<typeof LIMIT_RANGE>>({
    check: (path, value) =>
      typeof value === "object" && value !== null ? LIMIT_RANGE.check(path, value) : SLOTS.check(path, value),
    range: "1 to 100,000, or `{ initial, min, max }`",
    json: undefined,
    shownDefault: "`upstream.parallel`",
    doc: "requests in flight upstream; `{ initial, min, max }` is the scheduler's adaptive limit (FIFO gets `initial`)",
  }),
};

/** A scenario file, field by field. */
export const SCENARIO = {
  $schema: text({ shownDefault: "none", doc: "the JSON Schema an editor checks the file against" }),
  name: label({ default: "scenario", doc: "a short name shown in tables and reports" }),
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
export type ScenarioPool = InferShape<typeof POOL>;
export type ScenarioReplica = InferShape<typeof REPLICA>;
export type ScenarioGateway = InferShape<typeof GATEWAY>;
export type ScenarioChat = InferShape<typeof CHAT>;
export type ScenarioSystemPrompts = InferShape<typeof SYSTEM_PROMPTS>;
export type ScenarioBatch = InferShape<typeof BATCH>;
export type ScenarioBatchTenant = InferShape<typeof BATCH_TENANT>;
export type ScenarioBatchJobs = InferShape<typeof JOBS>;
export type ScenarioGoal = InferShape<typeof GOAL>;
export type { ScenarioScheduler } from "./scenario-scheduler.js";

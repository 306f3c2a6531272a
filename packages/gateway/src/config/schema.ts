import type { InferShape } from "@llm-scheduler/core";
import {
  boolean,
  custom,
  duration,
  integer,
  list,
  matching,
  number,
  object,
  oneOf,
  record,
  SCHEDULER_SCHEMA,
  string,
  TENANT_SCHEMA,
} from "@llm-scheduler/core/kit";
import { POOL_SCHEMA, REPLICA_SCHEMA } from "@llm-scheduler/pool";
import { secret } from "./combinators.js";

/** A base URL of an OpenAI-compatible server, with or without `/v1`. */
const UPSTREAM_URL = matching(/^https?:\/\/[^\s/?#]+(?:\/[^\s?#]*)?$/, "an http(s) URL", {
  doc: "an OpenAI-compatible server, with or without /v1",
});

/** A replica given as an object: the pool's own fields, its limit defaulting to the model's. */
const REPLICA = object(
  {
    ...REPLICA_SCHEMA,
    maxConcurrency: {
      ...REPLICA_SCHEMA.maxConcurrency,
      default: undefined,
      shownDefault: "the model's `maxConcurrency`",
    },
  },
  { doc: "one replica: `url`, and its own `id`, `maxConcurrency`, `adaptive`" },
);

/** One entry of `upstreams`: a URL, or a replica object. */
const UPSTREAM = custom<string | InferShape<NonNullable<typeof REPLICA.shape>>>({
  range: "an http(s) URL, or `{ url, id?, maxConcurrency?, adaptive? }`",
  json: { anyOf: [UPSTREAM_URL.json, REPLICA.json] },
  doc: "a replica of the model: its URL, or an object with its own id and limit",
  check: (path, value) =>
    typeof value === "string" ? UPSTREAM_URL.check(path, value) : REPLICA.check(path, value),
});

/** The model's pool: the pool's own options, and the cap of the model's limit. */
const POOL = {
  ...POOL_SCHEMA,
  maxConcurrency: integer(1, 1_000_000, {
    shownDefault: "the healthy replicas' sum",
    doc: "caps the model's limit below the replicas' sum, so the router keeps a choice under load",
  }),
};

/** The scheduler's options a file can hold: all but the store and the clock, which the gateway sets. */
const { store: _store, clock: _clock, ...SCHEDULER_FILE } = SCHEDULER_SCHEMA;

/** How the request's priority is forwarded to engines that take one (vLLM's `priority` field). */
const PASS_PRIORITY = {
  field: string(64, { default: "priority", doc: "the body field the engine reads (vLLM: `priority`)" }),
  values: record(number(-1_000_000, 1_000_000, { doc: "the value sent for this priority" }), {
    shownRange: "a number from -1,000,000 to 1,000,000 per priority name",
    doc: "the value sent per priority name (vLLM: lower is served first); a priority left out sends nothing",
  }),
};

/** The gateway's own fields of a model, beside the scheduler's options. */
export const MODEL_OWN = {
  upstreams: list(UPSTREAM, 1, 256, {
    doc: "the replicas of this model (URLs, or `{ url, id, maxConcurrency, adaptive }`); `maxConcurrency` is per replica",
  }),
  pool: object(POOL, {
    shownDefault: "`prefix` routing, health checks, engine signals",
    doc: "how requests are spread over the replicas; `routingKey`, `health` and `signals` may each be `false`",
  }),
  upstreamModel: string(256, {
    shownDefault: "the model's name",
    doc: "the model name sent upstream, when the server calls it otherwise",
  }),
  upstreamApiKey: secret(1, 4096, {
    shownDefault: "none",
    doc: "sent upstream as `Authorization: Bearer`; never logged",
  }),
  timeoutMs: duration({
    default: 600_000,
    doc: "run timeout of one request: its upstream call is aborted after this long (504)",
  }),
  passPriority: object(PASS_PRIORITY, {
    shownDefault: "off",
    doc: "forward the request's priority in the body (vLLM with `--scheduling-policy priority`)",
  }),
};

/** One model: its servers and every option `createScheduler()` takes, under the library's own names. */
export const MODEL = { ...MODEL_OWN, ...SCHEDULER_FILE };

/** The tenant quotas a key may carry (the scheduler's `tenants.<tenant>` fields). */
const { maxPriority: _maxPriority, ...KEY_QUOTAS } = TENANT_SCHEMA;

/** One API key: the credential (plain or hashed), its tenant, its priority ceiling and quotas. */
export const KEY = {
  key: secret(16, 4096, { doc: "the key as clients send it (read it from the environment); or `sha256`" }),
  sha256: matching(/^[0-9a-f]{64}$/, "64 lowercase hexadecimal digits", {
    doc: "the SHA-256 of the key, in hex (`printf %s KEY | sha256sum`); or `key`",
  }),
  tenant: string(256, { doc: "who the key belongs to: quotas, fairness, batch ownership, logs" }),
  priority: string(64, {
    doc: "the most urgent priority the key may use (its default); `x-priority` may ask for less",
  }),
  ...KEY_QUOTAS,
};

/** The admin credential: `/metrics` and `/dashboard`. */
const ADMIN = {
  key: secret(16, 4096, { doc: "the admin key (read it from the environment); or `sha256`" }),
  sha256: KEY.sha256,
};

const LISTEN = {
  host: string(255, { default: "127.0.0.1", doc: "the address to listen on" }),
  port: integer(0, 65_535, { default: 8080, doc: "the port (0: any free port)" }),
};

const BATCHES = {
  store: oneOf(["memory", "redis"], { default: "memory", doc: "where batches and files live" }),
  priority: string(64, {
    default: "batch",
    doc: "the priority batch items run at (capped by the key's)",
  }),
  maxInFlight: integer(1, 10_000, { default: 64, doc: "items this instance runs at once" }),
};

const REDIS = {
  url: secret(8, 4096, { doc: "redis://host:port (read a password from the environment)" }),
  prefix: string(128, { default: "llm-gateway", doc: "the prefix of every key" }),
};

const LOG = {
  level: oneOf(["debug", "info", "warn", "error", "silent"], { default: "info", doc: "the log level" }),
  access: boolean({ default: true, doc: "one JSON line per request" }),
};

/** The whole file. */
export const GATEWAY = {
  listen: object(LISTEN, { shownDefault: "127.0.0.1:8080", doc: "where the gateway listens" }),
  models: record(object(MODEL, { doc: "one model" }), { doc: "the models served, by the name clients send" }),
  auth: oneOf(["keys", "none"], {
    default: "keys",
    doc: '`"none"` serves every caller as tenant `anonymous`, written out on purpose',
  }),
  keys: list(object(KEY, { doc: "one API key" }), 0, 100_000, { doc: "the API keys" }),
  admin: object(ADMIN, { shownDefault: "none: /metrics and /dashboard answer 403", doc: "the admin key" }),
  batches: object(BATCHES, { shownDefault: "memory", doc: "the Files and Batches API" }),
  redis: object(REDIS, { shownDefault: "none", doc: "a shared store: one limit across gateway instances" }),
  drainTimeoutMs: integer(0, 3_600_000, {
    default: 30_000,
    doc: "on SIGTERM, how long running requests may finish",
  }),
  maxBodyBytes: integer(1_024, 104_857_600, {
    default: 16_777_216,
    doc: "the largest request body of the proxied routes (413 above)",
  }),
  probeIntervalMs: integer(100, 3_600_000, {
    default: 5_000,
    doc: "the default `pool.health.intervalMs` of every model: how often each replica is checked",
  }),
  log: object(LOG, { shownDefault: "info, with access lines", doc: "logging" }),
};

/** The gateway's configuration as checked: every field optional in the type, required ones checked apart. */
export type GatewayConfig = InferShape<typeof GATEWAY>;
/** One model's section. */
export type ModelConfig = InferShape<typeof MODEL>;
/** One key's entry. */
export type KeyConfig = InferShape<typeof KEY>;
/** The schema node of the whole file. */
export const GATEWAY_NODE = object(GATEWAY, { doc: "the gateway's configuration" });

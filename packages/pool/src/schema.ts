import type { Node } from "@llm-scheduler/core";
import {
  boolean,
  custom,
  integer,
  invalidOption,
  number,
  object,
  oneOf,
  positive,
  required,
  SCHEDULER_SCHEMA,
  string,
} from "@llm-scheduler/core/kit";
import { type EngineLoadOptions, resolveEngineLoad } from "./engine-load.js";
import { ROUTINGS } from "./routing/create-router.js";

/**
 * The pool's options that a file can hold, declared once with core's schema combinators: `createPool()`
 * checks them with these nodes, and the gateway puts the same nodes under `models.<name>` (its
 * `upstreams` and `pool` block), so both say the same thing in the same words.
 */

const DAY_MS = 86_400_000;

/** A path on the replica, starting with `/`. */
function pathNode(fallback: string, doc: string): Node<string> & { readonly default: string } {
  const range = "a path starting with `/`";
  return custom<string>({
    default: fallback,
    doc,
    range,
    json: { type: "string", pattern: "^/", maxLength: 1_000 },
    check(path, value) {
      if (typeof value !== "string" || !value.startsWith("/") || value.length > 1_000) {
        throw invalidOption(path, range, value);
      }
      return value;
    },
  });
}

/**
 * `node`, or `false` to turn the feature off. Its fields still show in README tables (as `name.field`).
 *
 * @example
 * const health = orOff(object(HEALTH_SCHEMA, { doc: "…" }));
 */
export function orOff<T>(node: Node<T>): Node<T | false> {
  return {
    ...node,
    range: `${node.range} or \`false\``,
    json: { anyOf: [node.json, { const: false }] },
    check: (path, value) => (value === false ? false : node.check(path, value)),
  } as Node<T | false>;
}

/** Active checks and passive ejection (`health`). */
export const HEALTH_SCHEMA = {
  path: pathNode("/v1/models", "the active check and the half-open probe: `GET url + path`, a 2xx passes"),
  intervalMs: integer(0, DAY_MS, {
    default: 5_000,
    doc: "between active checks of a healthy replica; 0 turns active checks off (passive only)",
  }),
  timeoutMs: integer(1, DAY_MS, { default: 2_000, doc: "a check or probe with no answer by then fails" }),
  failures: integer(1, 1_000, {
    default: 3,
    doc: "consecutive failures (connection errors, 5xx, failed checks) that eject a replica",
  }),
  ejectMs: integer(1, DAY_MS, { default: 5_000, doc: "how long the first ejection lasts before the probe" }),
  maxEjectMs: integer(1, DAY_MS, {
    default: 60_000,
    shownRange: "an integer from `ejectMs` to 86400000",
    doc: "each failed probe doubles the ejection, up to this",
  }),
};

/** Scraping the engines' Prometheus endpoints (`signals`). */
export const SIGNALS_SCHEMA = {
  path: pathNode("/metrics", "the engine's Prometheus text endpoint"),
  intervalMs: integer(0, DAY_MS, { default: 1_000, doc: "between scrapes; 0 turns scraping off" }),
  holdBack: custom<readonly string[]>({
    default: ["batch"],
    range: "an array of priority names",
    json: { type: "array", items: { type: "string", minLength: 1 } },
    doc: "priorities held back from a replica whose engine queues or whose KV cache is full",
    check(path, value) {
      if (!Array.isArray(value) || value.some((name) => typeof name !== "string" || name === "")) {
        throw invalidOption(path, "an array of priority names", value);
      }
      return value as readonly string[];
    },
  }),
  maxWaiting: integer(0, 1_000_000, {
    default: 0,
    doc: "a held-back priority skips a replica with more requests than this in its engine's queue",
  }),
  maxKvCacheUsage: number(0, 1, {
    default: 0.9,
    doc: "a held-back priority skips a replica whose KV cache usage (0 to 1) is above this",
  }),
  limit: custom<EngineLoadOptions | false>({
    range: "`{ maxWaiting?, maxKvCacheUsage? }` or `false`",
    json: {
      anyOf: [
        {
          type: "object",
          properties: {
            maxWaiting: { type: "integer", minimum: 0, maximum: 1_000_000 },
            maxKvCacheUsage: { type: "number", exclusiveMinimum: 0, maximum: 1 },
          },
          additionalProperties: false,
        },
        { const: false },
      ],
    },
    shownDefault: "`{ maxWaiting: 0, maxKvCacheUsage: 0.95 }`",
    doc: "feeds each adaptive replica limit: an engine queue past `maxWaiting` or a KV cache past `maxKvCacheUsage` through a window cuts it; `false`: latency and errors only",
    check(path, value) {
      resolveEngineLoad(path, value);
      return value as EngineLoadOptions | false;
    },
  }),
};

/** How a request's routing key is read (`createRoutingKey()`'s options, `routingKey`). */
export const ROUTING_KEY_SCHEMA = {
  sessionHeader: custom<string>({
    range: "a lower-case header name",
    json: { type: "string", pattern: "^[a-z0-9!#$%&'*+.^_`|~-]+$" },
    doc: "a request header whose value pins a session to a replica; checked first",
    check(path, value) {
      if (typeof value !== "string" || !/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(value)) {
        throw invalidOption(path, "a lower-case header name", value);
      }
      return value;
    },
  }),
  user: boolean({ default: true, doc: "the body's `user` field pins a session" }),
  prefixChars: integer(16, 1_000_000, {
    default: 4_096,
    doc: "characters of the prompt's beginning hashed; longer than any preamble your system prompts share",
  }),
  firstMessages: integer(0, 64, {
    default: 1,
    doc: "messages after the leading system messages that belong to the prefix",
  }),
};

/** One replica (`replicas[]`). */
export const REPLICA_SCHEMA = {
  url: required(
    custom<string>({
      range: "an http(s) URL without query or fragment",
      json: { type: "string", pattern: "^https?://[^\\s/?#]+(/[^\\s?#]*)?$" },
      doc: "the replica's base URL (a path prefix is kept: requests go to `url + path`)",
      check(path, value) {
        if (typeof value !== "string" || !/^https?:\/\/[^\s/?#]+(?:\/[^\s?#]*)?$/.test(value)) {
          throw invalidOption(path, "an http(s) URL without query or fragment", value);
        }
        return value.replace(/\/+$/, "");
      },
    }),
  ),
  id: string(128, {
    shownDefault: "`r<index>`",
    doc: "its id in metrics, to routers and in a shared ledger",
  }),
  maxConcurrency: SCHEDULER_SCHEMA.maxConcurrency,
  adaptive: SCHEDULER_SCHEMA.adaptive,
};

/** The pool's own options a file can hold, beside `replicas`, `scheduler` and the run time's pieces. */
/** How the pool estimates each replica's streaming speed (`speed`; decision 0059). */
export const SPEED_SCHEMA = {
  halfLife: integer(1, 10_000, {
    default: 20,
    doc: "answers after which an old sample weighs half in a replica's estimate",
  }),
  minFactor: positive(1, {
    default: 0.25,
    doc: "the lowest relative speed a replica counts at in the prefix bound, so a few slow samples cannot empty it",
  }),
  minSampleMs: integer(0, 60_000, {
    default: 50,
    doc: "answers streamed over less than this after their first byte give no sample",
  }),
};

export const POOL_SCHEMA = {
  routing: oneOf(ROUTINGS, {
    default: "prefix",
    doc: "where each request goes: prefix affinity (warm caches), least loaded of two, or in turn",
  }),
  routingKey: orOff(
    object(ROUTING_KEY_SCHEMA, {
      shownDefault: "{}",
      doc: "how the routing key is read from a request that brings none; `false`: none",
    }),
  ),
  retries: integer(0, 100, {
    default: 2,
    doc: "more attempts, each on another replica, for a request that failed before its first byte",
  }),
  health: orOff(object(HEALTH_SCHEMA, { shownDefault: "{}", doc: "active checks and passive ejection" })),
  signals: orOff(object(SIGNALS_SCHEMA, { shownDefault: "{}", doc: "engine signals and batch hold" })),
  speed: orOff(
    object(SPEED_SCHEMA, {
      shownDefault: "{}",
      doc: "each replica's streaming speed, measured from its answers, weighs its limit in `prefix`'s load bound; `false`: none",
    }),
  ),
};

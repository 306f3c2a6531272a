import { invalidOption as invalid } from "@llm-scheduler/core/kit";
import type { RedisClient, RedisStoreOptions } from "./options.js";

const URL_PATTERN = /^rediss?:\/\//;

/** A URL as error messages may show it: the credentials in it (up to its last `@`) become `***`. */
function redacted(url: unknown): unknown {
  return typeof url === "string" ? url.replace(/^([a-z][a-z0-9+.-]*:\/*).*@/i, "$1***@") : url;
}

/** Looks like an ioredis client (a `Redis` or a `Cluster`). */
function isClient(value: unknown): value is RedisClient {
  const candidate = value as { evalsha?: unknown; duplicate?: unknown } | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.evalsha === "function" &&
    typeof candidate.duplicate === "function"
  );
}

/**
 * True for an ioredis `Cluster` client.
 *
 * @example
 * isCluster(new Cluster([{ port: 7000 }])); // true
 */
export function isCluster(client: unknown): boolean {
  return (client as { isCluster?: unknown } | undefined)?.isCluster === true;
}

/**
 * One of `url` (a redis:// URL), `client` (an ioredis client) or `cluster` (node URLs); no password
 * shown. Returns the cluster's node URLs when given.
 *
 * @example
 * checkConnection({ cluster: ["redis://127.0.0.1:7000"] }); // ["redis://127.0.0.1:7000"]
 */
export function checkConnection(given: RedisStoreOptions): readonly string[] | undefined {
  const ways = ["url", "client", "cluster"].filter(
    (key) => given[key as keyof RedisStoreOptions] !== undefined,
  );
  if (ways.length > 1) {
    const shown = given.url !== undefined ? redacted(given.url) : "(a cluster's node URLs)";
    throw invalid(ways[0]!, `left out when \`${ways[1]}\` is given`, shown);
  }
  if (given.url !== undefined && (typeof given.url !== "string" || !URL_PATTERN.test(given.url))) {
    throw invalid("url", "a redis:// or rediss:// URL", redacted(given.url));
  }
  if (given.client !== undefined && !isClient(given.client)) {
    // An object is not shown: another client's options may hold a password.
    const shown = typeof given.client === "object" && given.client !== null ? {} : given.client;
    throw invalid("client", "an ioredis client", shown);
  }
  const nodes: unknown = given.cluster;
  if (nodes === undefined) return undefined;
  const valid =
    Array.isArray(nodes) &&
    nodes.length >= 1 &&
    nodes.length <= 64 &&
    nodes.every((node) => typeof node === "string" && URL_PATTERN.test(node));
  if (!valid) {
    const shown = Array.isArray(nodes) ? nodes.map(redacted) : redacted(nodes);
    throw invalid("cluster", "an array of 1 to 64 redis:// or rediss:// URLs", shown);
  }
  return [...(nodes as string[])];
}

/**
 * The prefix as the keys carry it. On a cluster every key of one scheduler must hash to one slot: a
 * prefix with a hash tag (a `{` followed later by a `}` with something between, as Redis reads it) is
 * kept, any other is wrapped in one. On a standalone Redis the prefix is kept as it is, so existing
 * keys stay where they are.
 *
 * @example
 * keyPrefix("llm:", true); // "{llm:}"
 * keyPrefix("{llm}:", true); // "{llm}:"
 * keyPrefix("llm:", false); // "llm:"
 */
export function keyPrefix(prefix: string, cluster: boolean): string {
  if (!cluster) return prefix;
  const open = prefix.indexOf("{");
  const close = open === -1 ? -1 : prefix.indexOf("}", open + 1);
  return close > open + 1 ? prefix : `{${prefix}}`;
}

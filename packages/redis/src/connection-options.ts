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
 * `url` when it is a redis:// or rediss:// URL; the message shows no password.
 *
 * @example
 * checkUrl("url", "redis://127.0.0.1:6379"); // "redis://127.0.0.1:6379"
 */
export function checkUrl(path: string, value: unknown): string {
  if (typeof value === "string" && URL_PATTERN.test(value)) return value;
  throw invalid(path, "a redis:// or rediss:// URL", redacted(value));
}

/**
 * `client` when it looks like an ioredis client; an object is not shown (another client's options may
 * hold a password).
 *
 * @example
 * checkClient("client", new Redis()); // the client
 */
export function checkClient(path: string, value: unknown): RedisClient {
  if (isClient(value)) return value;
  throw invalid(path, "an ioredis client", typeof value === "object" && value !== null ? {} : value);
}

/**
 * A copy of `cluster` when it is 1 to 64 redis:// or rediss:// URLs; no password shown.
 *
 * @example
 * checkCluster("cluster", ["redis://127.0.0.1:7000"]); // ["redis://127.0.0.1:7000"]
 */
export function checkCluster(path: string, nodes: unknown): readonly string[] {
  const valid =
    Array.isArray(nodes) &&
    nodes.length >= 1 &&
    nodes.length <= 64 &&
    nodes.every((node) => typeof node === "string" && URL_PATTERN.test(node));
  if (valid) return [...(nodes as string[])];
  const shown = Array.isArray(nodes) ? nodes.map(redacted) : redacted(nodes);
  throw invalid(path, "an array of 1 to 64 redis:// or rediss:// URLs", shown);
}

/**
 * Throws unless at most one of `url`, `client` and `cluster` is given (the URL shown without password).
 *
 * @example
 * checkConnection({ url: "redis://h", client }); // throws: Expected `url` to be left out when `client` is given
 */
export function checkConnection(given: RedisStoreOptions): void {
  const ways = ["url", "client", "cluster"].filter(
    (key) => given[key as keyof RedisStoreOptions] !== undefined,
  );
  if (ways.length > 1) {
    const shown = given.url !== undefined ? redacted(given.url) : "(a cluster's node URLs)";
    throw invalid(ways[0]!, `left out when \`${ways[1]}\` is given`, shown);
  }
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

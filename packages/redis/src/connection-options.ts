import { custom, invalidOption as invalid, type Meta, type Node } from "@llm-scheduler/core/kit";
import type { RedisClient } from "./options.js";

const URL_PATTERN = /^rediss?:\/\//;
const URL_RANGE = "a redis:// or rediss:// URL";

/** A URL as error messages may show it: the credentials in it (up to its last `@`) become `***`. */
function redacted(url: unknown): unknown {
  return typeof url === "string" ? url.replace(/^([a-z][a-z0-9+.-]*:\/*).*@/i, "$1***@") : url;
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
 * The `url` option: a redis:// or rediss:// URL; its message shows no password.
 *
 * @example
 * const url = urlNode({ doc: "where Redis listens" });
 */
export function urlNode(meta: Meta<string>): Node<string> {
  const check = (path: string, value: unknown): string => {
    if (typeof value === "string" && URL_PATTERN.test(value)) return value;
    throw invalid(path, URL_RANGE, redacted(value));
  };
  return custom({ ...meta, check, range: URL_RANGE, json: { type: "string", pattern: URL_PATTERN.source } });
}

/**
 * The `client` option: an ioredis client (a `Redis` or a `Cluster`); its message shows no object, since
 * another client's options may hold a password.
 *
 * @example
 * const client = clientNode<Redis>({ range: "an ioredis client", doc: "a client to reuse" });
 */
export function clientNode<T extends RedisClient>(meta: Meta<T> & { readonly range: string }): Node<T> {
  const check = (path: string, value: unknown): T => {
    const given = value as { evalsha?: unknown; duplicate?: unknown } | null;
    if (typeof given?.evalsha === "function" && typeof given.duplicate === "function") return value as T;
    throw invalid(path, "an ioredis client", typeof value === "object" && value !== null ? {} : value);
  };
  return custom({ ...meta, check, json: undefined });
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

/** The URL a store opens when given none of `url`, `client` and `cluster`. */
const LOCAL_REDIS = "redis://127.0.0.1:6379";

/**
 * Throws unless at most one of `url`, `client` and `cluster` is given (the URL shown without password);
 * returns the URL to open: the given one, else {@link LOCAL_REDIS} when neither `client` nor `cluster` is.
 *
 * @example
 * checkConnection({ url: "redis://h", client }); // throws: Expected `url` to be left out when `client` is given
 * checkConnection({}); // "redis://127.0.0.1:6379"
 */
export function checkConnection(given: unknown): string | undefined {
  if (typeof given !== "object" || given === null) return undefined; // the schema names what is wrong with it
  const fields = given as Record<string, unknown>;
  const ways = ["url", "client", "cluster"].filter((key) => fields[key] !== undefined);
  if (ways.length > 1) {
    const shown = fields.url === undefined ? "(a cluster's node URLs)" : redacted(fields.url);
    throw invalid(ways[0]!, `left out when \`${ways[1]}\` is given`, shown);
  }
  return ways.length === 0 ? LOCAL_REDIS : (fields.url as string | undefined);
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

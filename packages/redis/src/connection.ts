import { Cluster, Redis } from "ioredis";
import { isCluster } from "./connection-options.js";
import type { ResolvedRedisOptions } from "./options.js";

/**
 * The commands the store sends (scripts, `SCRIPT LOAD`, `CONFIG GET`, pub/sub, connection events), as
 * typed for a `Redis` client; an ioredis `Cluster` answers every one of them the same way, routing each
 * script call by its keys (all in one slot). Where the two differ (duplicating, loading scripts on
 * every node) the store asks {@link isCluster} first.
 */
export type Connection = Redis;

const retry = (times: number): number => Math.min(50 * times, 1_000);

/**
 * The command connection: the user's client, or one of the store's own that fails fast while Redis is
 * unreachable (no offline queue, no retries, no resending after a reconnect: every script call is
 * answered or fails, and the store decides what to do).
 */
export function openClient(config: ResolvedRedisOptions): { client: Connection; owned: boolean } {
  if (config.client !== undefined) return { client: config.client as Connection, owned: false };
  const redisOptions = {
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: config.commandTimeoutMs,
    connectionName: `llm-scheduler:${config.instanceId}`,
  };
  if (config.cluster !== undefined) {
    const cluster = new Cluster([...config.cluster], {
      enableOfflineQueue: false,
      clusterRetryStrategy: retry,
      redisOptions,
    });
    return { client: cluster as unknown as Connection, owned: true };
  }
  const client = new Redis(config.url!, { ...redisOptions, enableOfflineQueue: false, retryStrategy: retry });
  return { client, owned: true };
}

/**
 * Where `client` connects, for error messages: `host:port`, the socket path, the Sentinel group or the
 * cluster's startup nodes; never the user name or password of a URL.
 */
export function addressOf(client: Connection, cluster: readonly string[] | undefined): string {
  if (cluster !== undefined) {
    const nodes = cluster.map((url) => {
      const parsed = URL.canParse(url) ? new URL(url) : undefined;
      return parsed === undefined ? "?" : `${parsed.hostname}:${parsed.port || 6379}`;
    });
    return `cluster ${nodes.join(", ")}`;
  }
  if (isCluster(client)) return "a Redis Cluster";
  const { host, port, path, sentinels, name } = client.options;
  if (path) return path;
  if (sentinels && sentinels.length > 0) return `sentinel group ${name}`;
  return `${host ?? "localhost"}:${port ?? 6379}`;
}

/** A second connection like `client` (same nodes, TLS, auth, Sentinel), for pub/sub. */
function duplicateFor(client: Connection): Connection {
  if (isCluster(client)) {
    const cluster = client as unknown as Cluster;
    const copy = cluster.duplicate([], {
      enableOfflineQueue: true,
      clusterRetryStrategy: retry,
      redisOptions: { ...cluster.options.redisOptions, maxRetriesPerRequest: null, autoResubscribe: true },
    });
    return copy as unknown as Connection;
  }
  return client.duplicate({
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    autoResubscribe: true,
    lazyConnect: false,
    retryStrategy: retry,
  });
}

/** Handlers of the subscriber connection. */
export interface SubscriberHandlers {
  /** A message on the instance's grant channel: comma-separated ticket ids. */
  readonly message: (ids: string) => void;
  /** The subscription is (again) in place: grants published meanwhile are in the inbox. */
  readonly ready: () => void;
  readonly error: (error: unknown) => void;
}

/**
 * A second connection, duplicated from the command connection (same TLS, auth, Sentinel settings),
 * subscribed to this instance's grant channel and re-subscribed by ioredis after every reconnect.
 */
export function openSubscriber(
  client: Connection,
  channel: string,
  on: SubscriberHandlers,
): { subscriber: Connection; subscribed: Promise<void> } {
  const subscriber = duplicateFor(client);
  subscriber.on("error", on.error);
  subscriber.on("message", (from: string, message: string) => {
    if (from === channel) on.message(message);
  });
  subscriber.on("ready", on.ready);
  const subscribed = subscriber.subscribe(channel).then(
    () => {},
    (error: unknown) => on.error(error),
  );
  return { subscriber, subscribed };
}

/** Resolves when `promise` settles or `ms` have passed, whichever comes first; never rejects. */
export function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
}

/** Rejects with a timeout error when `promise` has not settled after `ms`; the timer is unref()ed. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no reply from Redis in ${ms} ms`)), ms);
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Resolves true once `client` is ready, false after `timeoutMs` or when it ends. */
export function whenReady(client: Connection, timeoutMs: number): Promise<boolean> {
  if (client.status === "ready") return Promise.resolve(true);
  if (client.status === "end" || client.status === "close") return Promise.resolve(false);
  if (client.status === "wait") client.connect().catch(() => {});
  return new Promise((resolve) => {
    const done = (ready: boolean): void => {
      clearTimeout(timer);
      client.off("ready", onReady);
      client.off("end", onEnd);
      resolve(ready);
    };
    const onReady = (): void => done(true);
    const onEnd = (): void => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    timer.unref();
    client.once("ready", onReady);
    client.once("end", onEnd);
  });
}

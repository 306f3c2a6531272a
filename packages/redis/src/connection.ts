import { Redis } from "ioredis";
import type { RedisClient, ResolvedRedisOptions } from "./options.js";

/**
 * The command connection: the user's client, or one of the store's own that fails fast while Redis is
 * unreachable (no offline queue, no retries, no resending after a reconnect: every script call is
 * answered or fails, and the store decides what to do).
 */
export function openClient(config: ResolvedRedisOptions): { client: RedisClient; owned: boolean } {
  if (config.client !== undefined) return { client: config.client, owned: false };
  const client = new Redis(config.url!, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: config.commandTimeoutMs,
    connectionName: `llm-scheduler:${config.instanceId}`,
    retryStrategy: (times) => Math.min(50 * times, 1_000),
  });
  return { client, owned: true };
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
  client: RedisClient,
  channel: string,
  on: SubscriberHandlers,
): { subscriber: RedisClient; subscribed: Promise<void> } {
  const subscriber = client.duplicate({
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    autoResubscribe: true,
    lazyConnect: false,
    retryStrategy: (times: number) => Math.min(50 * times, 1_000),
  });
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
export function whenReady(client: RedisClient, timeoutMs: number): Promise<boolean> {
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

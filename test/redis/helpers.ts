import { createScheduler, type Scheduler, type SchedulerOptions } from "@llm-scheduler/core";
import { RedisStore, type RedisStoreOptions } from "@llm-scheduler/redis";
import { fixedKeys } from "@llm-scheduler/redis/layout";
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { type RedisServer, startRedisServer } from "./redis-server.js";

/**
 * Starts a redis-server for the test file in `beforeAll` and stops it in `afterAll`; with `{ admin: true }`
 * also opens an ioredis client on it, quit before the server stops. `beforeAll` fills in the fields, so
 * read them inside tests and hooks. Call it before the file's own hooks: vitest runs `afterAll` hooks in
 * reverse order, so the file's clean-up still finds Redis running.
 */
export function useRedisServer(options: { admin: true }): {
  readonly server: RedisServer;
  readonly admin: Redis;
};
export function useRedisServer(): { readonly server: RedisServer };
export function useRedisServer(options: { admin?: boolean } = {}): { server?: RedisServer; admin?: Redis } {
  const fixture: { server?: RedisServer; admin?: Redis } = {};
  beforeAll(async () => {
    fixture.server = await startRedisServer();
    if (options.admin) {
      fixture.admin = new Redis(fixture.server.url);
      fixture.admin.on("error", () => {}); // a test that stops the server sees it reconnect
    }
  });
  afterAll(async () => {
    await fixture.admin?.quit();
    await fixture.server?.stop();
  });
  return fixture;
}

/** Polls `check` every 10 ms until it returns true; fails after `timeoutMs`. For integration tests only. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
  what = "condition",
): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - started;
}

/** Polls Redis until no ticket under `prefix` runs or waits; fails after `timeoutMs`. */
export function waitForEmpty(client: Redis, prefix: string, timeoutMs: number): Promise<number> {
  return waitFor(
    async () => {
      const state = await redisState(client, prefix);
      return state.running === 0 && state.queued === 0;
    },
    timeoutMs,
    "nothing left in Redis",
  );
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One gateway instance in this process: a scheduler on a RedisStore. */
export interface Instance {
  readonly store: RedisStore;
  readonly scheduler: Scheduler;
  readonly errors: unknown[];
  close(): Promise<void>;
}

export function instance(url: string, store: RedisStoreOptions, scheduler: SchedulerOptions): Instance {
  const errors: unknown[] = [];
  const redisStore = new RedisStore({ url, onError: (error) => errors.push(error), ...store });
  const created = createScheduler({ ...scheduler, store: redisStore });
  created.on("error", ({ error }) => errors.push(error));
  return {
    store: redisStore,
    scheduler: created,
    errors,
    async close() {
      await created.close({ timeoutMs: 2_000 });
      await redisStore.close();
    },
  };
}

/** The global counters as Redis holds them. */
export async function redisState(
  client: Redis,
  prefix: string,
): Promise<{ running: number; queued: number }> {
  const state = await client.hgetall(fixedKeys(prefix).state);
  return { running: Number(state.running ?? 0), queued: Number(state.queued ?? 0) };
}

/** Store calls Redis has served so far (FCALL and EVALSHA, from INFO commandstats). */
export async function scriptCalls(client: Redis): Promise<number> {
  const info = await client.info("commandstats");
  const calls = [...info.matchAll(/cmdstat_(?:fcall|evalsha):calls=(\d+)/g)];
  return calls.reduce((sum, match) => sum + Number(match[1]), 0);
}

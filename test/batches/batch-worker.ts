/**
 * One batch worker process for the multi-process tests: a scheduler (4 at once) and a batch layer on a
 * Redis batch store, sending each item to the test's upstream. Prints `READY` once started.
 * Settings come from the environment: REDIS_URL, PREFIX, UPSTREAM_URL, VISIBILITY_MS.
 */
import { createBatches, openaiExecutor } from "@llm-scheduler/batches";
import { createScheduler } from "@llm-scheduler/core";
import { redisBatchStore } from "@llm-scheduler/redis";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const scheduler = createScheduler({ maxConcurrency: 4 });
const store = redisBatchStore({ url: env("REDIS_URL"), prefix: env("PREFIX"), commandTimeoutMs: 1_000 });
const batches = createBatches({
  scheduler,
  store,
  execute: openaiExecutor({ baseURL: `${env("UPSTREAM_URL")}/v1`, apiKey: "sk-worker" }),
  maxInFlight: 8,
  visibilityMs: Number(env("VISIBILITY_MS")),
  pollMs: 50,
  itemTimeoutMs: 5_000,
  retry: { maxAttempts: 10, baseMs: 50, maxMs: 500 },
});
console.log("READY");

process.on("SIGTERM", () => {
  void batches
    .close()
    .then(() => scheduler.close({ timeoutMs: 1_000 }))
    .then(() => store.close())
    .then(() => process.exit(0));
});

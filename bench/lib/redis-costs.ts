// Where a store script call's time goes inside Redis: the release script cut after each stage, each
// cut run on its own against a configured state, timed by INFO commandstats (usec per EVALSHA).
import { createScheduler } from "@llm-scheduler/core";
import { RedisStore } from "@llm-scheduler/redis";
import { fixedKeys, keyList, scriptSource } from "@llm-scheduler/redis/layout";
import { Redis } from "ioredis";

/** Microseconds per call inside Redis, per stage, cumulative. */
export type StageCosts = ReadonlyArray<readonly [stage: string, usPerCall: number]>;

/** Times `calls` sequential calls of each cut of the release script on the Redis at `url`. */
export async function scriptStageCosts(url: string, calls: number): Promise<StageCosts> {
  const prefix = `stages${Date.now()}:`;
  const store = new RedisStore({ url, prefix });
  const scheduler = createScheduler({ maxConcurrency: 8, store });
  await scheduler.run(() => {}); // writes the configuration: two priorities
  const admin = new Redis(url);
  const keys = keyList(fixedKeys(prefix));
  const source = scriptSource("release");
  const library = source.slice(0, source.indexOf("if not begin()"));
  const cuts: Array<[string, string]> = [
    ["an empty script (`return 1`)", "return 1"],
    ["+ the shared library's definitions and TIME", `${library} return 1`],
    ["+ begin(): the state hash read and parsed", `${library} begin() return 1`],
    ["+ upkeep(): expired leases, dead instances", `${library} begin() upkeep() return 1`],
    ["+ pump() with nothing queued", `${library} begin() upkeep() pump() return 1`],
    ["+ finish(): counters written back, counts", `${library} begin() upkeep() pump() finish() return 1`],
    ["the release script, releasing nothing", source],
  ];
  const costs: Array<readonly [string, number]> = [];
  try {
    for (const [stage, body] of cuts) {
      const sha = (await admin.script("LOAD", body)) as string;
      await admin.config("RESETSTAT");
      for (let i = 0; i < calls; i++)
        await admin.evalsha(sha, keys.length, ...keys, prefix, "bench", "", "x:1");
      const stats = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(await admin.info("commandstats"));
      costs.push([stage, Number(stats?.[2] ?? 0) / Math.max(1, Number(stats?.[1] ?? 0))]);
    }
  } finally {
    await admin.quit();
    await scheduler.close();
    await store.close();
  }
  return costs;
}

// Where a store call's time goes inside Redis: the release operation cut after each stage, each cut
// run on its own against a configured state, once as a script (EVALSHA: the shared library defined on
// every call) and once as a Redis Function (FCALL: defined once, at FUNCTION LOAD), timed by INFO
// commandstats (usec per call).
import { createScheduler } from "@llm-scheduler/core";
import { RedisStore } from "@llm-scheduler/redis";
import { fixedKeys, functionLibrary, keyList, scriptSource } from "@llm-scheduler/redis/layout";
import { Redis } from "ioredis";

/** Microseconds per call inside Redis, per stage, cumulative: as a script, and as a function. */
export type StageCosts = ReadonlyArray<readonly [stage: string, evalsha: number, fcall: number]>;

/** Each stage's code after the call's start (`reset()`: arguments and TIME), as a script and a function. */
const STAGES: ReadonlyArray<readonly [stage: string, body: string]> = [
  ["an empty call (`return 1`)", "return 1"],
  ["+ the call's start: the library's definitions (scripts only), arguments, TIME", "return 1"],
  ["+ begin(): the state hash read and parsed", "begin() return 1"],
  ["+ upkeep(): expired leases, dead instances", "begin() upkeep() return 1"],
  ["+ pump() with nothing queued", "begin() upkeep() pump() return 1"],
  ["+ finish(): counters written back, counts", "begin() upkeep() pump() finish() return 1"],
];

/** Runs `call` `n` times in a row; the mean usec per call of `command` inside Redis. */
async function usPerCall(
  admin: Redis,
  command: string,
  call: () => Promise<unknown>,
  n: number,
): Promise<number> {
  await admin.config("RESETSTAT");
  for (let i = 0; i < n; i++) await call();
  const info = await admin.info("commandstats");
  const stats = new RegExp(`cmdstat_${command}:calls=(\\d+),usec=(\\d+)`).exec(info);
  return Number(stats?.[2] ?? 0) / Math.max(1, Number(stats?.[1] ?? 0));
}

/** Times `calls` sequential calls of each cut of the release operation on the Redis at `url`. */
export async function scriptStageCosts(url: string, calls: number): Promise<StageCosts> {
  const prefix = `stages${Date.now()}:`;
  const store = new RedisStore({ url, prefix });
  const scheduler = createScheduler({ maxConcurrency: 8, store });
  await scheduler.run(() => {}); // writes the configuration: two priorities
  const admin = new Redis(url);
  const keys = keyList(fixedKeys(prefix));
  const args = [prefix, "bench", "", "x:1"];
  const release = scriptSource("release");
  const start = release.slice(0, release.indexOf("if not begin()")); // the library, then reset()
  const scripts = STAGES.map(([, body], i) => (i === 0 ? body : `${start} ${body}`));
  scripts.push(release);
  const library = functionLibrary({
    ...Object.fromEntries(STAGES.slice(1).map(([, body], i) => [`s${i + 1}`, body])),
    release: release.slice(release.indexOf("if not begin()")),
  });
  const functions = [
    "bench_empty",
    ...STAGES.slice(1).map((_, i) => library.functions[`s${i + 1}`]!),
    library.functions.release!,
  ];
  const stages = [...STAGES.map(([stage]) => stage), "the release operation, releasing nothing"];
  const costs: Array<readonly [string, number, number]> = [];
  try {
    await admin.call("FUNCTION", "LOAD", "REPLACE", library.source);
    await admin.call(
      "FUNCTION",
      "LOAD",
      "REPLACE",
      '#!lua name=bench_empty\nredis.register_function("bench_empty", function() return 1 end)',
    );
    for (const [i, stage] of stages.entries()) {
      const sha = (await admin.script("LOAD", scripts[i]!)) as string;
      const evalsha = await usPerCall(
        admin,
        "evalsha",
        () => admin.evalsha(sha, keys.length, ...keys, ...args),
        calls,
      );
      const fcall = await usPerCall(
        admin,
        "fcall",
        () => admin.fcall(functions[i]!, keys.length, ...keys, ...args),
        calls,
      );
      costs.push([stage, evalsha, fcall]);
    }
  } finally {
    await admin.quit();
    await scheduler.close();
    await store.close();
  }
  return costs;
}

// What each store operation costs inside Redis, by operation: the Redis commands it runs (INFO
// commandstats, which counts the commands a function calls; deterministic, unlike time on a loaded
// machine) and the CPU of the call (usec per FCALL), without tenant options and with quotas and token
// fairness on. One instance calls the store's Function library directly, one ticket per call, with a
// global limit of 1 so that the second ticket waits.
import { type FunctionLibrary, fixedKeys, functionLibrary, keyList } from "@llm-scheduler/redis/layout";
import { Redis } from "ioredis";

/** One operation's cost: commands per call and usec per call. */
export interface OpCost {
  readonly op: string;
  readonly commands: number;
  readonly usec: number;
  /** The commands by name, e.g. "hget 2, zadd 1". */
  readonly byCommand: string;
}

export interface OpCosts {
  readonly name: string;
  /** Commands of a release of an unknown id: the fixed part of any call, and one ZREM. */
  readonly fixed: number;
  readonly ops: readonly OpCost[];
}

const OPS = [
  "enqueue, granted at once",
  "enqueue, queued",
  "release, granting the waiter",
  "remove a waiting ticket",
  "release of an unknown id",
  "release, nothing waiting",
] as const;

function config(quotas: boolean): string {
  const quota = quotas ? "6 2000 1000000000 1000000000" : "-1 -1 -1 -1";
  return JSON.stringify({
    bk: quotas ? "1" : "0",
    td: quota,
    mt: quotas ? 1_000_000 : -1,
    fa: quotas ? "1" : "0",
    ow: 1,
    tq: {},
    max: 1,
    mq: -1,
    p: [{ n: "default", w: 1, r: 0, m: 1, q: -1, a: -1 }],
  });
}

/** The commands (other than the call itself and the measuring) and FCALL usec since the last reset. */
async function read(admin: Redis, named: Map<string, number>): Promise<[commands: number, usec: number]> {
  const info = await admin.info("commandstats");
  let commands = 0;
  let usec = 0;
  for (const [, name, calls, time] of info.matchAll(/cmdstat_([^:]+):calls=(\d+),usec=(\d+)/g)) {
    if (name === "fcall") usec = Number(time);
    else if (!/^(config|info)/.test(name!)) {
      commands += Number(calls);
      named.set(name!, Number(calls));
    }
  }
  return [commands, usec];
}

async function measure(
  url: string,
  quotas: boolean,
  rounds: number,
  library: FunctionLibrary,
): Promise<OpCosts> {
  const prefix = `ops${quotas ? "q" : "p"}${Date.now()}:`;
  const admin = new Redis(url);
  const { source, functions } = library;
  await admin.call("FUNCTION", "LOAD", "REPLACE", source);
  const keys = keyList(fixedKeys(prefix));
  const call = (op: string, ...args: Array<string | number>) =>
    admin.fcall(functions[op]!, keys.length, ...keys, prefix, "b", "", ...args);
  await call("configure", config(quotas), 30_000, "", "0", "1", "0");
  const ticket = (seq: number, tenant: string) => [`b:${seq}`, "default", tenant, 1, 1_500, "0", "", 0];
  const sums = OPS.map(() => [0, 0]);
  const byCommand = OPS.map(() => new Map<string, number>());
  const steps: ReadonlyArray<(seq: number) => Promise<unknown>> = [
    (seq) => call("enqueue", 30_000, ...ticket(seq, "t1")),
    (seq) => call("enqueue", 30_000, ...ticket(seq + 1, "t2")),
    (seq) => call("release", `b:${seq}`),
    (seq) => call("remove", `b:${seq + 2}`),
    () => call("release", "b:0"),
    (seq) => call("release", `b:${seq + 1}`), // the waiter granted by the release
  ];
  try {
    for (let round = 0; round < rounds; round++) {
      const seq = 10 + 4 * round;
      for (const [i, step] of steps.entries()) {
        if (i === 3) await call("enqueue", 30_000, ...ticket(seq + 2, "t3")); // waits behind b:(seq+1)
        await admin.config("RESETSTAT");
        await step(seq);
        const named = new Map<string, number>();
        const [commands, usec] = await read(admin, named);
        for (const [name, calls] of named) byCommand[i]!.set(name, (byCommand[i]!.get(name) ?? 0) + calls);
        sums[i]![0]! += commands;
        sums[i]![1]! += usec;
      }
    }
  } finally {
    await admin.quit();
  }
  const ops = OPS.map((op, i) => ({
    op,
    commands: sums[i]![0]! / rounds,
    usec: sums[i]![1]! / rounds,
    byCommand: [...byCommand[i]!]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, calls]) => `${name} ${Number((calls / rounds).toFixed(2))}`)
      .join(", "),
  }));
  return { name: quotas ? "with quotas" : "without quotas", fixed: ops[4]!.commands, ops };
}

/**
 * Both configurations on the Redis at `url`, `rounds` rounds of the four operations each; `library`:
 * the store's, or another version of it (to compare two in one run).
 */
export async function opCommandCosts(
  url: string,
  rounds: number,
  library: FunctionLibrary = functionLibrary(),
): Promise<OpCosts[]> {
  return [await measure(url, false, rounds, library), await measure(url, true, rounds, library)];
}

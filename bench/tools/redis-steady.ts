// What a decision costs inside Redis in a steady state like the 4-instance run's, without the Node
// processes around it: one instance calls the store's Function library directly, each call releasing
// 32 tickets and enqueuing 32 (so every release grants a waiting ticket), with 32 slots held and about
// 450 tickets waiting over 4 tenants. Prints, per decision: Redis CPU (INFO cpu), the time inside the
// calls and the commands they ran (INFO commandstats). With `--against <checkout>`, the library of
// another checkout of this repository runs too, alternated with this one on the same redis-server.
// Usage: node --conditions=source --import tsx bench/tools/redis-steady.ts [--rounds 5] [--calls 200] [--against <dir>]
import { parseArgs } from "node:util";
import * as here from "@llm-scheduler/redis/layout";
import { startLocalRedis } from "@llm-scheduler/redis/local-server";
import { Redis } from "ioredis";
import { floorLoad } from "../lib/redis-floor.js";
import { measureSteady, type SteadyLoad, steadyLoad } from "../lib/redis-steady-load.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    calls: { type: "string", default: "200" },
    against: { type: "string" },
  },
});

/** One run's figures per decision: Redis CPU µs, µs inside the calls, commands, and µs by command. */
interface Run {
  readonly figures: number[];
  readonly byCommand: Map<string, number>;
}

/** One steady run of `calls` step calls of `load`. */
async function steady(admin: Redis, load: SteadyLoad, calls: number): Promise<Run> {
  await admin.config("RESETSTAT");
  const { cpuPerDecisionUs } = await measureSteady(admin, load, calls);
  const stats = [...(await admin.info("commandstats")).matchAll(/cmdstat_([^:]+):calls=(\d+),usec=(\d+)/g)];
  const decisions = load.decisions(calls);
  const inCalls = Number(stats.find((s) => s[1] === "fcall")?.[3] ?? 0);
  const inside = stats.filter((s) => !/^(fcall|config|info)/.test(s[1]!));
  const commands = inside.reduce((sum, s) => sum + Number(s[2]), 0);
  const byCommand = new Map(inside.map((s) => [s[1]!, Number(s[3]) / decisions]));
  return { figures: [cpuPerDecisionUs, inCalls / decisions, commands / decisions], byCommand };
}

const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
/** Each contender's load under a fresh prefix: this checkout's library, the other one's, the floor. */
const layouts: Array<[string, (admin: Redis, prefix: string) => Promise<SteadyLoad>]> = [
  ["this checkout", (admin, prefix) => steadyLoad(admin, here, prefix)],
];
if (values.against !== undefined) {
  const other = await import(`${values.against}/packages/redis/src/layout.ts`);
  layouts.push([values.against, (admin, prefix) => steadyLoad(admin, other, prefix)]);
}
layouts.push(["floor (a counter and one list: bench/lib/redis-floor.ts)", floorLoad]);
const redis = await startLocalRedis();
const admin = new Redis(redis.url);
try {
  const results = layouts.map(() => [] as Run[]);
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const [i, [, load]] of layouts.entries()) {
      results[i]!.push(await steady(admin, await load(admin, `steady${round}-${i}:`), Number(values.calls)));
    }
  }
  for (const [i, [name]] of layouts.entries()) {
    const runs = results[i]!;
    const [cpu, inCalls, commands] = [0, 1, 2].map((k) => median(runs.map((r) => r.figures[k]!)));
    console.log(
      `${name}: per decision, medians of ${values.rounds}: Redis CPU ${cpu!.toFixed(1)} µs, in calls ${inCalls!.toFixed(1)} µs, ${commands!.toFixed(2)} commands`,
    );
    const names = [...runs[0]!.byCommand.keys()];
    const usec = names.map(
      (command) => [command, median(runs.map((r) => r.byCommand.get(command) ?? 0))] as const,
    );
    const top = usec.sort((a, b) => b[1] - a[1]).filter(([, us]) => us >= 0.05);
    console.log(`  µs per decision by command: ${top.map(([c, us]) => `${c} ${us.toFixed(2)}`).join(", ")}`);
  }
} finally {
  await admin.quit();
  await redis.stop();
}

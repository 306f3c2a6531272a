// Two builds of the core on the throughput workload, in one process, alternating run by run: CPU time
// per task of each, and their ratio. For a change too small for the throughput part's spread to show.
// Usage: node --expose-gc --import tsx bench/tools/ab-core.ts <distA> <distB> [N=20000] [rounds=15]
//   pnpm build && cp -r packages/core/dist /tmp/core-a   # before the change
//   pnpm build && node --expose-gc --import tsx bench/tools/ab-core.ts /tmp/core-a packages/core/dist
// Run it once with the same directory twice (an A/A run) to see the noise of the moment.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type * as Core from "@llm-scheduler/core";
import { CONCURRENCY, isInteractive, noop, TENANTS } from "../lib/contenders.js";

const [dirA, dirB, sizeText = "20000", roundsText = "15"] = process.argv.slice(2);
if (dirA === undefined || dirB === undefined)
  throw new Error("Usage: ab-core.ts <distA> <distB> [N] [rounds]");
const load = async (dir: string): Promise<typeof Core> =>
  (await import(pathToFileURL(resolve(dir, "index.js")).href)) as typeof Core;
const builds = [await load(dirA), await load(dirB)] as const;
const size = Number(sizeText);
const rounds = Number(roundsText);

/** CPU µs per task for one run of `size` tasks, set up as the throughput part sets up llm-scheduler. */
async function cpuPerTask(core: typeof Core): Promise<number> {
  const scheduler = core.createScheduler({
    maxConcurrency: CONCURRENCY,
    priorities: {
      interactive: { weight: 5, reserved: 1, queueTimeoutMs: 600_000, maxQueue: size },
      batch: { weight: 1, queueTimeoutMs: 600_000, maxQueue: size },
    },
  });
  globalThis.gc?.();
  const before = process.cpuUsage();
  const runs: Array<Promise<unknown>> = [];
  for (let i = 0; i < size; i++) {
    runs.push(
      scheduler.run(noop, { priority: isInteractive(i) ? "interactive" : "batch", tenant: TENANTS[i & 15]! }),
    );
  }
  await Promise.all(runs);
  const used = process.cpuUsage(before);
  await scheduler.close();
  return (used.user + used.system) / size;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;
for (let i = 0; i < 3; i++) for (const core of builds) await cpuPerTask(core);
const times: [number[], number[]] = [[], []];
for (let round = 0; round < rounds; round++) {
  // Alternate which build goes first, so that neither always runs on the heap the other left.
  const order = round % 2 === 0 ? [0, 1] : [1, 0];
  for (const which of order) times[which as 0 | 1].push(await cpuPerTask(builds[which as 0 | 1]));
}
const [a, b] = [median(times[0]), median(times[1])];
console.log(
  `N = ${size}, ${rounds} rounds: A ${a.toFixed(2)} µs CPU per task, B ${b.toFixed(2)} µs, B/A ${(b / a).toFixed(3)}`,
);

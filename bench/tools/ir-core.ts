// The throughput part's llm-scheduler workload (a fresh scheduler per round, two priorities, 16 tenants,
// queue timeouts) for one build of the core, to count instructions under valgrind, which other work on
// a shared machine does not move. The difference between N and N = 1 is the instructions of N tasks,
// gc included (`--single-threaded` keeps the gc on the counted thread). After `pnpm build`:
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded --import tsx \
//     bench/tools/ir-core.ts packages/core/dist 100000 1
// and again with N = 1; (total - total at N = 1) / N is the count per task.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type * as Core from "@llm-scheduler/core";
import { CONCURRENCY, isInteractive, noop, TENANTS } from "../lib/contenders.js";

const [dir = "packages/core/dist", sizeText = "100000", roundsText = "1"] = process.argv.slice(2);
const core = (await import(pathToFileURL(resolve(dir, "index.js")).href)) as typeof Core;
const size = Number(sizeText);

for (let round = 0; round < Number(roundsText); round++) {
  const scheduler = core.createScheduler({
    maxConcurrency: CONCURRENCY,
    priorities: {
      interactive: { weight: 5, reserved: 1, queueTimeoutMs: 600_000, maxQueue: size },
      batch: { weight: 1, queueTimeoutMs: 600_000, maxQueue: size },
    },
  });
  const runs = new Array<Promise<unknown>>(size);
  for (let i = 0; i < size; i++) {
    runs[i] = scheduler.run(noop, {
      priority: isInteractive(i) ? "interactive" : "batch",
      tenant: TENANTS[i & 15]!,
    });
  }
  await Promise.all(runs);
  await scheduler.close();
}

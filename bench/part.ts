// Runs one part in this process (started by run.ts with --expose-gc), prints its tables and goals,
// writes bench/results/<date>-<part>.md, and leaves the goals in the file named by --summary.
import { existsSync, writeFileSync } from "node:fs";
import { resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type PartName, parseArgs } from "./lib/args.js";
import { benchFile, repoRoot, usingDist } from "./lib/node-child.js";
import type { Part } from "./lib/part.js";
import { renderConsole, writeReport } from "./lib/report.js";

const parts: Record<PartName, () => Promise<{ run: Part }>> = {
  throughput: () => import("./parts/throughput.js"),
  memory: () => import("./parts/memory.js"),
  scale: () => import("./parts/scale.js"),
  http: () => import("./parts/http.js"),
  quality: () => import("./parts/quality.js"),
  observe: () => import("./parts/observe.js"),
  batches: () => import("./parts/batches.js"),
  dashboard: () => import("./parts/dashboard.js"),
  redis: () => import("./parts/redis.js"),
  fleet: () => import("./parts/fleet.js"),
  fairness: () => import("./parts/fairness.js"),
  preemption: () => import("./parts/preemption.js"),
  adaptive: () => import("./parts/adaptive.js"),
  targets: () => import("./parts/targets.js"),
  pools: () => import("./parts/pools.js"),
  "batch-deadlines": () => import("./parts/batch-deadlines.js"),
  gateway: () => import("./parts/gateway.js"),
};

const argv = process.argv.slice(2);
const summaryAt = argv.indexOf("--summary");
const summaryFile = summaryAt >= 0 ? argv.splice(summaryAt, 2)[1] : undefined;
const args = parseArgs(argv);
if (usingDist()) {
  const entry = fileURLToPath(import.meta.resolve("@llm-scheduler/core"));
  if (!entry.includes(`${sep}dist${sep}`) || !existsSync(entry)) {
    throw new Error(`--dist needs the built packages: run \`pnpm build\` first (core resolved to ${entry})`);
  }
}
const name = args.parts[0]!;
const startedAt = new Date();
const { run } = await parts[name]();
const report = await run({
  quick: args.quick,
  runs: args.runs,
  log: (line) => console.log(`  [${name}] ${line}`),
});
const info = {
  quick: args.quick,
  argv: [name, ...argv.filter((arg) => arg !== name)],
  startedAt,
  seconds: (Date.now() - startedAt.getTime()) / 1000,
};
console.log(renderConsole(report, info));
const dir =
  args.out !== undefined ? resolve(repoRoot, args.out) : benchFile(args.quick ? "results/quick" : "results");
console.log(`\n  written to ${writeReport(dir, report, info)}`);
if (summaryFile !== undefined) writeFileSync(summaryFile, JSON.stringify(report.goals));
// Servers and schedulers are closed by the parts; exit anyway so a stray handle cannot hold the run.
process.exit(0);

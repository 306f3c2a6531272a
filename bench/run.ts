// `pnpm bench [part ...] [--quick]`: runs each part in its own Node process (fresh heap, gc exposed),
// then prints which goals hold. See BENCHMARKS.md.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs, partArgv, USAGE } from "./lib/args.js";
import { describeMachine } from "./lib/machine.js";
import { benchFile, runTs, useDist } from "./lib/node-child.js";
import { type Goal, goalLine } from "./lib/report.js";

if (process.argv.includes("--help") || process.argv.includes("-h")) {
  console.log(USAGE);
  process.exit(0);
}
let args: ReturnType<typeof parseArgs>;
try {
  args = parseArgs(process.argv.slice(2));
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}

if (args.dist) useDist();
console.log(`llm-scheduler benchmarks on ${describeMachine()}${args.quick ? " (quick)" : ""}`);
const scratch = mkdtempSync(join(tmpdir(), "llm-scheduler-bench-"));
const outcome: Array<{ part: string; goals: readonly Goal[]; error?: string; seconds: number }> = [];
for (const part of args.parts) {
  const started = performance.now();
  const summary = join(scratch, `${part}.json`);
  try {
    await runTs(benchFile("part.ts"), [part, ...partArgv(args), "--summary", summary], { echo: true });
    const goals = JSON.parse(readFileSync(summary, "utf8")) as Goal[];
    outcome.push({ part, goals, seconds: (performance.now() - started) / 1000 });
  } catch (error) {
    outcome.push({
      part,
      goals: [],
      error: (error as Error).message,
      seconds: (performance.now() - started) / 1000,
    });
  }
}
rmSync(scratch, { recursive: true, force: true });

console.log("\n== Goals ==");
for (const { part, goals, error, seconds } of outcome) {
  console.log(
    `  ${part} (${seconds.toFixed(1)} s)${error === undefined ? "" : `: FAILED TO RUN\n    ${error.split("\n")[0]}`}`,
  );
  for (const goal of goals) console.log(`    ${goalLine(goal)}`);
}
const failed = outcome.some((entry) => entry.error !== undefined);
const missed = outcome.some((entry) => entry.goals.some((goal) => !goal.holds));
if (args.quick && missed)
  console.log("  (quick run: sizes are tiny, so PASS/MISS above says nothing about the goals)");
process.exit(failed || (args.strict && missed) ? 1 : 0);

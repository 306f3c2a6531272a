#!/usr/bin/env node
import { writeFile } from "node:fs/promises";
import { parseSimulateArgs, usage } from "./cli-args.js";
import { formatDuration, formatSweepProgress } from "./format.js";
import { checkOutputPath } from "./output-path.js";
import { renderHtmlReport } from "./report-html.js";
import type { Scenario } from "./scenario.js";
import { ScenarioError } from "./scenario-error.js";
import { loadScenarioFile } from "./scenario-load.js";
import { type ResolvedScenario, resolveScenario } from "./scenario-resolve.js";
import { simulate } from "./simulate.js";
import type { RunResult } from "./stats.js";
import { renderSweep, runSweep } from "./sweep.js";
import { parseSweep } from "./sweep-spec.js";
import { renderComparison, tableLegend } from "./table.js";
import { generateWorkload } from "./workload.js";

const write = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

async function timed(scenario: ResolvedScenario, run: () => Promise<RunResult>): Promise<RunResult> {
  const started = performance.now();
  const result = await run();
  const wallMs = performance.now() - started;
  write(
    `${result.label}: ${formatDuration(result.elapsedMs)} of virtual time, ` +
      `${result.interactive.attempts + result.batch.items + result.batch.retries} attempts, in ${formatDuration(wallMs)}` +
      ` (seed ${scenario.seed})`,
  );
  return result;
}

/** `path`: where the HTML report goes, already checked by `checkOutputPath`. */
async function compare(scenario: ResolvedScenario, path: string | undefined): Promise<void> {
  const workload = generateWorkload(scenario);
  const fifo = await timed(scenario, () => simulate(scenario, { gateway: "fifo", workload }));
  const scheduled = await timed(scenario, () => simulate(scenario, { gateway: "scheduler", workload }));
  const table = renderComparison(scenario, [fifo, scheduled]);
  write(`\n${table}\n\n${tableLegend}`);
  if (path !== undefined) {
    const title = `llm-scheduler simulation: ${scenario.name}`;
    const notes = ["Virtual time: the real scheduler against the upstream-sim latency model."];
    await writeFile(path, renderHtmlReport({ title, scenario, results: [fifo, scheduled], table, notes }));
    write(`\nHTML report: ${path}`);
  }
}

async function sweep(raw: Scenario, scenario: ResolvedScenario, specs: readonly string[]): Promise<void> {
  const names = (scenario.scheduler.priorities ? Object.keys(scenario.scheduler.priorities) : undefined) ?? [
    "interactive",
    "batch",
  ];
  const axes = parseSweep(specs, names);
  const started = performance.now();
  const outcome = await runSweep(raw, axes, (done, total) => {
    if (!process.stderr.isTTY) return;
    const line = formatSweepProgress(done, total, performance.now() - started, process.stderr.columns);
    process.stderr.write(`\r${line}\u001b[K`);
  });
  if (process.stderr.isTTY) process.stderr.write("\n");
  write(
    `${scenario.name}: ${outcome.rows.length} configurations in ${formatDuration(performance.now() - started)}\n`,
  );
  write(renderSweep(outcome));
}

/**
 * `pnpm simulate <scenario.json>`: FIFO against llm-scheduler in virtual time, or a `--sweep` of
 * scheduler settings against a goal.
 *
 * @example
 * // pnpm simulate examples/scenarios/day.json --sweep batch.weight=1,2,4 interactive.reserved=0,1,2
 */
async function main(): Promise<void> {
  const command = parseSimulateArgs(process.argv.slice(2));
  if (command.kind === "help") {
    process.stdout.write(usage);
    return;
  }
  const html = command.html === undefined ? undefined : await checkOutputPath("--html", command.html);
  const overrides = { seed: command.seed, durationMs: command.durationMs };
  const loaded = await loadScenarioFile(command.file, overrides);
  const goalGiven = Object.keys(command.goal).length > 0;
  const raw: Scenario = goalGiven
    ? { ...loaded.raw, goal: { ...loaded.raw.goal, ...command.goal } }
    : loaded.raw;
  const scenario = goalGiven ? resolveScenario(raw) : loaded.resolved;
  if (command.sweep.length > 0) await sweep(raw, scenario, command.sweep);
  else await compare(scenario, html);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  const hint =
    error instanceof ScenarioError || error instanceof TypeError ? "\n\nRun with --help for usage." : "";
  process.stderr.write(`simulate: ${message}${hint}\n`);
  process.exit(1);
});

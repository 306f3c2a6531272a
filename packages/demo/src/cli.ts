#!/usr/bin/env node
import { ScenarioError } from "@llm-scheduler/simulator";
import { parseDemoArgs, usage } from "./cli-args.js";
import { runDemo } from "./run-demo.js";

/**
 * `pnpm demo`: FIFO against llm-scheduler, in real time, on a simulated LLM server.
 *
 * @example
 * // pnpm demo --duration 10 --seed 2
 */
async function main(): Promise<void> {
  const command = parseDemoArgs(process.argv.slice(2), process.env);
  if (command.kind === "help") {
    process.stdout.write(usage);
    return;
  }
  await runDemo(command.options);
}

/** Bad flags or a bad scenario file get the usage hint; a server or a path that fails does not. */
function isUsageError(error: unknown): boolean {
  return error instanceof TypeError || error instanceof ScenarioError;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    const hint = isUsageError(error) ? "\n\nRun with --help for usage." : "";
    process.stderr.write(`demo: ${message}${hint}\n`);
    process.exit(1);
  },
);

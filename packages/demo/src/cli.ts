#!/usr/bin/env node
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

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `demo: ${error instanceof Error ? error.message : String(error)}\n\nRun with --help for usage.\n`,
    );
    process.exit(1);
  },
);

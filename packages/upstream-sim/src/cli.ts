#!/usr/bin/env node
import { parseCliArgs, usage } from "./cli-args.js";
import { startUpstream } from "./server.js";

/**
 * The `upstream-sim` command: starts the simulator, prints its URL and closes cleanly on SIGINT or
 * SIGTERM.
 *
 * @example
 * // pnpm upstream --port 8000 --parallel 8
 */
async function main(): Promise<void> {
  const command = parseCliArgs(process.argv.slice(2));
  if (command.kind === "help") {
    process.stdout.write(usage);
    return;
  }
  const sim = await startUpstream(command.options);
  const { parallel, model } = sim.options;
  process.stdout.write(`upstream-sim listening on ${sim.url} (model ${model}, parallel ${parallel})\n`);
  process.stdout.write(`OpenAI base URL: ${sim.url}/v1\n`);
  const stop = (signal: NodeJS.Signals): void => {
    process.stdout.write(`${signal}: closing\n`);
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`upstream-sim: ${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
  process.exit(1);
});

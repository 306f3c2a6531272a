#!/usr/bin/env node
import { parseCliArgs, usage } from "./cli-args.js";
import { startReplicas } from "./server.js";

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
  const sims = await startReplicas(command.replicas ?? 1, command.options);
  for (const sim of sims) {
    const { parallel, model } = sim.options;
    process.stdout.write(`upstream-sim listening on ${sim.url} (model ${model}, parallel ${parallel})\n`);
    process.stdout.write(`OpenAI base URL: ${sim.url}/v1\n`);
  }
  const stop = (signal: NodeJS.Signals): void => {
    process.stdout.write(`${signal}: closing\n`);
    Promise.all(sims.map((sim) => sim.close())).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/** A bad flag or option gets the usage hint; a port already taken gets a hint of its own. */
function hintFor(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "EADDRINUSE")
    return "\n\nAnother process listens there; pick another port with --port (0: any free one).";
  if (error instanceof TypeError || code === "INVALID_OPTION") return "\n\nRun with --help for usage.";
  return "";
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`upstream-sim: ${message}${hintFor(error)}\n`);
  process.exit(1);
});

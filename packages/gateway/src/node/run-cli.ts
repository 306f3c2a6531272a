import { parseArgs } from "node:util";
import { ConfigError } from "../config/errors.js";
import { resolveConfig } from "../config/resolve.js";
import { loadConfigFile } from "./config-file.js";
import { serveGateway } from "./serve.js";

/** An example served when no `--config` is given: its configuration, keys to print, and its own close. */
export interface GatewayExample {
  readonly config: Record<string, unknown>;
  /** Lines printed once it serves (`{url}` is replaced by the gateway's URL). */
  readonly banner: readonly string[];
  close(): Promise<void>;
}

const USAGE = `llm-scheduler-gateway --config FILE [--check]

  --config FILE   YAML or JSON configuration (\${ENV_VAR} interpolated)
  --check         check the file and exit: 0 when it can be served, 1 with one line saying why not`;

type Args = { config?: string; check?: boolean; port?: string; help?: boolean };

/** One line on stderr and exit 1: what start-up errors look like. */
function fail(message: string): never {
  process.stderr.write(`llm-scheduler-gateway: ${message}\n`);
  process.exit(1);
}

function parse(argv: readonly string[]): Args {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        config: { type: "string" },
        check: { type: "boolean" },
        port: { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
    }).values;
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`);
  }
}

async function run(
  argv: readonly string[],
  example?: (port: number) => Promise<GatewayExample>,
): Promise<void> {
  const args = parse(argv);
  if (args.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const file = args.config;
  if (args.check === true) {
    if (file === undefined) fail("--check needs --config FILE");
    await loadConfigFile(file);
    process.stdout.write(`${file}: ok\n`);
    return;
  }
  if (file !== undefined) {
    const running = await serveGateway(await loadConfigFile(file), {
      file,
      signals: true,
      onClosed: () => process.exit(0),
    });
    process.stdout.write(`llm-scheduler-gateway serving ${running.url} from ${file}\n`);
    return;
  }
  if (example === undefined) fail(`--config FILE is required\n${USAGE}`);
  const started = await example(Number(args.port ?? process.env.PORT ?? 8080));
  try {
    const running = await serveGateway(await resolveConfig(started.config), {
      signals: true,
      onClosed: () => void started.close().then(() => process.exit(0)),
    });
    process.stdout.write(
      `${started.banner.map((line) => line.replaceAll("{url}", running.url)).join("\n")}\n`,
    );
  } catch (error) {
    await started.close();
    throw error;
  }
}

/**
 * The command line of `llm-scheduler-gateway`: `--config FILE` serves it (reload on change and SIGHUP,
 * drain on SIGTERM), `--check` checks it; every start-up error is one line on stderr and exit 1. With
 * `example`, no `--config` serves that example instead (what `pnpm gateway` does in the repository).
 *
 * @example
 * await runGatewayCli(process.argv.slice(2));
 */
export function runGatewayCli(
  argv: readonly string[],
  example?: (port: number) => Promise<GatewayExample>,
): Promise<void> {
  return run(argv, example).catch((error: unknown) => {
    if (error instanceof ConfigError) fail(error.message);
    fail(`unexpected error: ${error instanceof Error ? error.message : String(error)}`);
  });
}

#!/usr/bin/env node
import { parseArgs } from "node:util";
import { ConfigError } from "../config/errors.js";
import { resolveConfig } from "../config/resolve.js";
import { loadConfigFile } from "./config-file.js";
import { startExample } from "./example.js";
import { serveGateway } from "./serve.js";

const USAGE = `llm-scheduler-gateway [--config FILE] [--check]

  --config FILE   YAML or JSON configuration (\${ENV_VAR} interpolated); without it, an example on local simulators
  --check         check the file and exit: 0 when it can be served, 1 with one line saying why not
  --port N        with no --config: the example's port (default 8080)`;

/** One line on stderr and exit 1: what start-up errors look like. */
function fail(message: string): never {
  process.stderr.write(`llm-scheduler-gateway: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let args: ReturnType<
    typeof parseArgs<{
      options: {
        config: { type: "string" };
        check: { type: "boolean" };
        port: { type: "string" };
        help: { type: "boolean" };
      };
    }>
  >;
  try {
    args = parseArgs({
      options: {
        config: { type: "string" },
        check: { type: "boolean" },
        port: { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
    });
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`);
  }
  const { values } = args;
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const file = values.config;
  if (values.check === true) {
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
  const port = Number(values.port ?? process.env.PORT ?? 8080);
  const example = await startExample(port);
  const running = await serveGateway(await resolveConfig(example.config), {
    signals: true,
    onClosed: () => void example.close().then(() => process.exit(0)),
  }).catch(async (error: unknown) => {
    await example.close();
    throw error;
  });
  process.stdout.write(
    [
      `llm-scheduler-gateway: the embedded example on ${running.url} (models chat-model and embed-model on local simulators)`,
      `  demo key:  ${example.demoKey}`,
      `  admin key: ${example.adminKey}  (/metrics, /dashboard)`,
      `  try: curl ${running.url}/v1/chat/completions -H "authorization: Bearer ${example.demoKey}" -H "content-type: application/json" -d '{"model":"chat-model","messages":[{"role":"user","content":"Hi"}]}'`,
      "",
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) fail(error.message);
  fail(`unexpected error: ${error instanceof Error ? error.message : String(error)}`);
});

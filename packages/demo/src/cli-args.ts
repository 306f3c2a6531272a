import { parseArgs } from "node:util";
import { parseDurationFlag } from "@llm-scheduler/simulator";
import { type DemoOptions, demoDurationMs } from "./run-demo.js";

/** What `pnpm demo` was asked to do. */
export type DemoCommand = { readonly kind: "help" } | { readonly kind: "run"; readonly options: DemoOptions };

/** The help text of `pnpm demo`. */
export const usage = `Usage: pnpm demo [options]

Starts a simulated LLM server, then replays the same mixed workload twice in real time: through a plain
FIFO gateway (a concurrency limit and one queue) and through an Express gateway with llm-scheduler.
Prints both side by side and writes an HTML report with charts.

  --duration <time>     how long chat users arrive: seconds, or 90s, 2m; 1s to 1h (default 15)
  --seed <n>            seed of the workload (default 1)
  --scenario <file>     a scenario file instead of the built-in workload (see examples/scenarios)
  --upstream <url>      an OpenAI-compatible server (vLLM, Ollama) instead of the simulated one;
                        checked first (GET /v1/models answers within 5 s and lists --model)
  --model <name>        model of each request, for a real server (default sim-model)
  --report <file>       where the HTML report goes (default demo-report.html); checked before the run
  --exit                exit after the report; on a terminal the live dashboard otherwise stays up
                        until Enter or Ctrl-C (piped or in CI the demo always exits by itself)
  -h, --help            show this help

UPSTREAM_API_KEY, when set, is sent to the upstream server as a bearer token.
`;

function demoDuration(text: string): number {
  const ms = parseDurationFlag("duration", text);
  if (ms < demoDurationMs.min || ms > demoDurationMs.max) {
    throw new TypeError(
      `Expected \`--duration\` to be from 1s to 1h (the demo runs in real time, twice), got \`${text}\` (string); ` +
        "for longer runs use pnpm simulate, which runs in virtual time",
    );
  }
  return ms;
}

/**
 * Parses the arguments of `pnpm demo`.
 *
 * @example
 * parseDemoArgs(["--duration", "10", "--seed", "3"]); // { kind: "run", options: { durationMs: 10000, seed: 3 } }
 */
export function parseDemoArgs(args: readonly string[], env: NodeJS.ProcessEnv = {}): DemoCommand {
  const { values } = parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      duration: { type: "string" },
      seed: { type: "string" },
      scenario: { type: "string" },
      upstream: { type: "string" },
      model: { type: "string" },
      report: { type: "string" },
      exit: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help === true) return { kind: "help" };
  let seed: number | undefined;
  if (values.seed !== undefined) {
    seed = Number(values.seed);
    if (values.seed.trim() === "" || !Number.isSafeInteger(seed))
      throw new TypeError(`Expected \`--seed\` to be an integer, got \`${values.seed}\` (string)`);
  }
  if (values.model !== undefined && values.model.trim() === "") {
    throw new TypeError("Expected `--model` to be a model name, got `` (string)");
  }
  if (values.upstream !== undefined && !URL.canParse(values.upstream)) {
    throw new TypeError(`Expected \`--upstream\` to be an http(s) URL, got \`${values.upstream}\` (string)`);
  }
  if (values.upstream !== undefined && !/^https?:\/\//.test(values.upstream)) {
    throw new TypeError(`Expected \`--upstream\` to be an http(s) URL, got \`${values.upstream}\` (string)`);
  }
  const options: DemoOptions = {
    durationMs: values.duration === undefined ? undefined : demoDuration(values.duration),
    seed,
    scenarioFile: values.scenario,
    upstreamUrl: values.upstream,
    model: values.model,
    reportPath: values.report,
    upstreamKey: env.UPSTREAM_API_KEY,
    holdDashboard: values.exit === true ? false : undefined,
  };
  const defined = Object.entries(options).filter(([, value]) => value !== undefined);
  return { kind: "run", options: Object.fromEntries(defined) as DemoOptions };
}

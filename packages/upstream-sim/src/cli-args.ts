import { parseArgs } from "node:util";
import type { FaultRates, UpstreamOptions } from "./options.js";

/** What the command line asks for. */
export type CliCommand =
  | { readonly kind: "help" }
  | { readonly kind: "start"; readonly options: UpstreamOptions; readonly replicas?: number };

const numberFlags = {
  port: "port",
  parallel: "parallel",
  "ttft-ms": "ttftMs",
  "prefill-ms-per-token": "prefillMsPerToken",
  "token-ms": "tokenMs",
  slowdown: "slowdown",
  "default-max-tokens": "defaultMaxTokens",
  "max-queued": "maxQueued",
  seed: "seed",
  "retry-after-seconds": "retryAfterSeconds",
  "slow-factor": "slowFactor",
  "prefix-cache-blocks": "prefixCacheBlocks",
  "block-tokens": "blockTokens",
} as const satisfies Record<string, keyof UpstreamOptions>;

const rateFlags = { "rate-429": "429", "rate-500": "500", "rate-slow": "slow", "rate-hang": "hang" } as const;

/** The help text of the CLI. */
export const usage = `Usage: upstream-sim [options]

An OpenAI-compatible LLM server simulator.

  --port <n>                  port to listen on, 0 for a free one (default 8000)
  --host <host>               host to listen on (default 127.0.0.1)
  --model <name>              model name served (default sim-model)
  --parallel <n>              sequences served at once (default 4)
  --ttft-ms <ms>              base time to first token (default 50)
  --prefill-ms-per-token <ms> prefill time per prompt token (default 0.2)
  --token-ms <ms>             decode time per token, alone (default 20)
  --slowdown <x>              extra step time with a full batch (default 1)
  --default-max-tokens <n>    tokens generated without max_tokens (default 64)
  --max-queued <n>            requests allowed to wait, else 503 (default unlimited)
  --seed <n>                  seed of faults and filler text (default 42)
  --rate-429 <share>          share of requests answered 429
  --rate-500 <share>          share of requests answered 500
  --rate-slow <share>         share of requests made slowFactor times slower
  --rate-hang <share>         share of requests that never answer
  --retry-after-seconds <s>   Retry-After of a 429 (default 1)
  --slow-factor <x>           delay factor of a slow request (default 5)
  --replicas <n>              start n replicas on ports port, port+1, ... (default 1)
  --prefix-cache-blocks <n>   KV blocks in each replica's prefix cache, 0 for none (default 0)
  --block-tokens <n>          tokens per KV block (default 16)
  --fault-rules <json>        targeted faults, e.g. '[{"fault":"429","times":2,"promptIncludes":"q-7"}]'
                              (the first 2 attempts of each prompt with q-7 get a 429)
  -h, --help                  show this help
`;

function toNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = text.trim().toLowerCase() === "infinity" ? Number.POSITIVE_INFINITY : Number(text);
  if (text.trim() === "" || Number.isNaN(value)) {
    throw new TypeError(`Expected \`--${flag}\` to be a number, got \`${text}\` (string)`);
  }
  return value;
}

/** `--fault-rules '[{"fault":"429","times":2,"promptIncludes":"q-7"}]'`: JSON; checked by `startUpstream`. */
function faultRulesOf(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new TypeError(`Expected \`--fault-rules\` to be a JSON array of rules, got \`${text}\` (string)`);
  }
}

/**
 * Turns command-line arguments into options for `startUpstream` (the CLI listens on port 8000 unless
 * told otherwise). Unknown flags throw; ranges are checked later by `resolveUpstreamOptions`.
 *
 * @example
 * parseCliArgs(["--port", "8000", "--parallel", "8"]);
 * // { kind: "start", options: { port: 8000, parallel: 8 } }
 */
export function parseCliArgs(args: readonly string[]): CliCommand {
  const flags = [
    ...Object.keys(numberFlags),
    ...Object.keys(rateFlags),
    "host",
    "model",
    "fault-rules",
    "replicas",
  ];
  const { values } = parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      ...Object.fromEntries(flags.map((flag) => [flag, { type: "string" as const }])),
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help === true) return { kind: "help" };
  const all: Readonly<Record<string, unknown>> = values;
  const text = (flag: string): string | undefined => {
    const value = all[flag];
    return typeof value === "string" ? value : undefined;
  };
  const options: Record<string, unknown> = { port: 8000, host: text("host"), model: text("model") };
  for (const [flag, key] of Object.entries(numberFlags)) {
    const value = toNumber(flag, text(flag));
    if (value !== undefined) options[key] = value;
  }
  const faults: Record<string, number> = {};
  for (const [flag, kind] of Object.entries(rateFlags)) {
    const value = toNumber(flag, text(flag));
    if (value !== undefined) faults[kind] = value;
  }
  if (Object.keys(faults).length > 0) options.faults = faults satisfies FaultRates;
  options.faultRules = faultRulesOf(text("fault-rules"));
  const defined = Object.entries(options).filter(([, value]) => value !== undefined);
  const started = { kind: "start" as const, options: Object.fromEntries(defined) as UpstreamOptions };
  const replicas = toNumber("replicas", text("replicas"));
  return replicas === undefined ? started : { ...started, replicas };
}

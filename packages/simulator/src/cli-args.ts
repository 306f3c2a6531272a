import { parseArgs } from "node:util";

/** What `pnpm simulate` was asked to do. */
export type SimulateCommand =
  | { readonly kind: "help" }
  | {
      readonly kind: "run";
      readonly file: string;
      readonly seed: number | undefined;
      readonly durationMs: number | undefined;
      /** `batch.weight=1,2,4` settings; empty for a plain FIFO-against-llm-scheduler run. */
      readonly sweep: readonly string[];
      /** Goal fields set on the command line: `interactiveWaitP95Ms=500`. */
      readonly goal: Readonly<Record<string, number>>;
      readonly html: string | undefined;
    };

/** The help text of `pnpm simulate`. */
export const usage = `Usage: pnpm simulate <scenario.json> [options]

Replays a scenario in virtual time through the real llm-scheduler and through a plain FIFO gateway,
against the upstream-sim latency model, and prints both side by side. Nothing really waits.

  --seed <n>                 override the scenario's seed
  --duration <time>          override the scenario's duration: seconds, or 500ms, 90s, 30m, 24h
  --sweep <k=v,v,...> ...    try every combination of settings, e.g.
                               --sweep batch.weight=1,2,4 interactive.reserved=0,1,2
                             <priority>.<field> is a scheduler priority field, maxConcurrency the
                             gateway limit, anything else a path in the scenario (chat.timeoutMs)
  --goal <field=value>       override a goal field for the sweep, e.g. --goal interactiveWaitP95Ms=500
  --html <file>              also write an HTML report with charts (not with --sweep)
  -h, --help                 show this help

Example scenarios: examples/scenarios/*.json; the format: packages/simulator/README.md
`;

/**
 * Reads a duration flag: a plain number is seconds; `ms`, `s`, `m`/`min`, `h` and `d` suffixes are
 * understood. Returns milliseconds.
 *
 * @example
 * parseDurationFlag("duration", "10"); // 10_000
 * parseDurationFlag("duration", "1.5h"); // 5_400_000
 */
export function parseDurationFlag(flag: string, text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d)?\s*$/.exec(text);
  const units: Record<string, number> = {
    ms: 1,
    s: 1_000,
    m: 60_000,
    min: 60_000,
    h: 3_600_000,
    d: 86_400_000,
  };
  const value = match === null ? Number.NaN : Number(match[1]) * units[match[2] ?? "s"]!;
  if (!(value > 0)) {
    throw new TypeError(
      `Expected \`--${flag}\` to be a duration such as 10, 90s, 30m or 24h, got \`${text}\` (string)`,
    );
  }
  return value;
}

function numberFlag(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value)) {
    throw new TypeError(`Expected \`--${flag}\` to be a number, got \`${text}\` (string)`);
  }
  return value;
}

function parseGoal(entries: readonly string[]): Record<string, number> {
  const goal: Record<string, number> = {};
  for (const entry of entries) {
    const [key, text] = entry.split("=", 2);
    const value = text === "Infinity" ? Number.POSITIVE_INFINITY : Number(text);
    if (key === undefined || key === "" || text === undefined || Number.isNaN(value)) {
      throw new TypeError(`Expected \`--goal\` to be field=number, got \`${entry}\` (string)`);
    }
    goal[key] = value;
  }
  return goal;
}

/**
 * Parses the arguments of `pnpm simulate`. Sweep settings may follow one `--sweep` flag separated by
 * spaces (`--sweep a=1,2 b=0,1`) or each have their own flag.
 *
 * @example
 * parseSimulateArgs(["day.json", "--sweep", "batch.weight=1,2", "interactive.reserved=0,1"]);
 */
export function parseSimulateArgs(args: readonly string[]): SimulateCommand {
  const { values, positionals } = parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: true,
    options: {
      seed: { type: "string" },
      duration: { type: "string" },
      sweep: { type: "string", multiple: true },
      goal: { type: "string", multiple: true },
      html: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help === true) return { kind: "help" };
  const files = positionals.filter((arg) => !arg.includes("="));
  const extraSweep = positionals.filter((arg) => arg.includes("="));
  if (extraSweep.length > 0 && (values.sweep ?? []).length === 0) {
    throw new TypeError(`Unexpected argument \`${extraSweep[0]}\`; sweep settings follow --sweep`);
  }
  if (files.length !== 1) {
    throw new TypeError(`Expected one scenario file, got ${files.length === 0 ? "none" : files.join(", ")}`);
  }
  const sweep = [...(values.sweep ?? []), ...extraSweep];
  if (sweep.length > 0 && values.html !== undefined)
    throw new TypeError("`--html` cannot be used with `--sweep`");
  const goal = parseGoal(values.goal ?? []);
  if (sweep.length === 0 && Object.keys(goal).length > 0)
    throw new TypeError("`--goal` applies only to a `--sweep`; add --sweep <setting>=<values>");
  return {
    kind: "run",
    file: files[0]!,
    seed: numberFlag("seed", values.seed),
    durationMs: values.duration === undefined ? undefined : parseDurationFlag("duration", values.duration),
    sweep,
    goal,
    html: values.html,
  };
}

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
  --duration <ms>            override the scenario's durationMs
  --sweep <k=v,v,...> ...    try every combination of settings, e.g.
                               --sweep batch.weight=1,2,4 interactive.reserved=0,1,2
                             <priority>.<field> is a scheduler priority field, maxConcurrency the
                             gateway limit, anything else a path in the scenario (chat.timeoutMs)
  --goal <field=value>       override a goal field for the sweep, e.g. --goal interactiveWaitP95Ms=500
  --html <file>              also write an HTML report with charts (not with --sweep)
  -h, --help                 show this help

Example scenarios: examples/scenarios/*.json; the format: packages/simulator/README.md
`;

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
  return {
    kind: "run",
    file: files[0]!,
    seed: numberFlag("seed", values.seed),
    durationMs: numberFlag("duration", values.duration),
    sweep,
    goal: parseGoal(values.goal ?? []),
    html: values.html,
  };
}

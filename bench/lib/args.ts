/** Command line of `pnpm bench`: `pnpm bench [part ...] [--quick] [--runs N] [--out DIR] [--strict] [--dist]`. */

export const PARTS = [
  "throughput",
  "memory",
  "scale",
  "http",
  "quality",
  "observe",
  "batches",
  "dashboard",
  "redis",
  "fleet",
  "fairness",
  "preemption",
  "adaptive",
  "targets",
  "pools",
  "batch-deadlines",
  "gateway",
] as const;
export type PartName = (typeof PARTS)[number];

export interface BenchArgs {
  readonly parts: readonly PartName[];
  /** Tiny sizes and few runs: checks that every part still works, in seconds. */
  readonly quick: boolean;
  /** Runs per measurement, where a part repeats; `undefined` lets each part choose. */
  readonly runs: number | undefined;
  /** Where result files go; created when missing. @default bench/results (bench/results/quick for --quick) */
  readonly out: string | undefined;
  /** Exit with status 1 when a goal is missed. */
  readonly strict: boolean;
  /** Measure the built packages (`dist/`, after `pnpm build`) instead of their TypeScript sources. */
  readonly dist: boolean;
}

export const USAGE = `Usage: pnpm bench [${PARTS.join(" | ")} ...] [--quick] [--runs N] [--out DIR] [--strict] [--dist]

  (no part)    run every part in turn
  --quick      tiny sizes and few runs, to check that the benchmarks still work (CI smoke run)
  --runs N     repetitions per measurement (default: each part's own, at least 5 for throughput)
  --out DIR    write results to DIR (default bench/results, or bench/results/quick with --quick)
  --strict     exit with status 1 when a goal is missed
  --dist       measure the built packages (run \`pnpm build\` first) instead of their TypeScript
               sources; sources run through tsx, whose transform adds a little to every closure`;

function isPart(value: string): value is PartName {
  return (PARTS as readonly string[]).includes(value);
}

/** Parses the arguments; throws an Error with a message for the user on anything it does not know. */
export function parseArgs(argv: readonly string[]): BenchArgs {
  const parts: PartName[] = [];
  let quick = false;
  let strict = false;
  let dist = false;
  let runs: number | undefined;
  let out: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    const [flag, inline] = arg.startsWith("--") ? (arg.split("=", 2) as [string, string | undefined]) : [arg];
    const value = (): string => {
      const given = inline ?? argv[++index];
      if (given === undefined) throw new Error(`Expected a value after \`${flag}\``);
      return given;
    };
    if (flag === "--") continue;
    if (flag === "--quick") quick = true;
    else if (flag === "--strict") strict = true;
    else if (flag === "--dist") dist = true;
    else if (flag === "--out") out = value();
    else if (flag === "--runs") {
      const text = value();
      runs = Number(text);
      if (!Number.isInteger(runs) || runs < 1)
        throw new Error(`Expected \`--runs\` to be a positive integer, got \`${text}\``);
    } else if (isPart(arg)) parts.push(arg);
    else throw new Error(`Unknown argument \`${arg}\`\n\n${USAGE}`);
  }
  return { parts: parts.length === 0 ? [...PARTS] : parts, quick, runs, out, strict, dist };
}

/** The arguments back as a command line, for the child that runs one part. */
export function partArgv(args: BenchArgs): string[] {
  const argv: string[] = [];
  if (args.quick) argv.push("--quick");
  if (args.runs !== undefined) argv.push("--runs", String(args.runs));
  if (args.out !== undefined) argv.push("--out", args.out);
  if (args.dist) argv.push("--dist");
  return argv;
}

import type { PartReport } from "./report.js";

/** What every part receives. */
export interface PartOptions {
  readonly quick: boolean;
  /** Repetitions asked for on the command line, or `undefined` for the part's own default. */
  readonly runs: number | undefined;
  /** Progress lines for the terminal (not the results file). */
  readonly log: (line: string) => void;
}

/** A benchmark part: `bench/parts/<name>.ts` exports one as `run`. */
export type Part = (options: PartOptions) => Promise<PartReport>;

import { formatProgress, type PhaseProgress } from "./progress.js";

/** Options of {@link progressWriter}. */
export interface ProgressWriterOptions {
  /** Where text goes. */
  readonly write: (text: string) => void;
  /** Rewrite one line in place (a terminal), or print a line every two seconds (a log). */
  readonly interactive: boolean;
  /** The terminal's width now (it may be resized mid-run); `undefined` reads as 80. */
  readonly columns: () => number | undefined;
}

/** Shows a phase's progress as it runs; {@link progressWriter} makes one. */
export interface ProgressWriter {
  /** Shows where a phase stands now. */
  update(progress: PhaseProgress): void;
  /** Leaves the last state on its own line, for the next phase to start below it. */
  end(): void;
}

/**
 * Live progress for `pnpm demo`: on a terminal one line rewritten in place, cut to the terminal's
 * width so it never wraps (a wrapped line cannot be rewritten and floods the screen); elsewhere a
 * line every two seconds, at most 80 characters wide.
 *
 * @example
 * const progress = progressWriter({ write, interactive: true, columns: () => process.stdout.columns });
 * await runPhase({ ...phase, onProgress: (p) => progress.update(p) });
 * progress.end();
 */
export function progressWriter(options: ProgressWriterOptions): ProgressWriter {
  const { write, interactive } = options;
  let lastPrinted = Number.NEGATIVE_INFINITY;
  let last: PhaseProgress | undefined;
  const format = (progress: PhaseProgress) => formatProgress(progress, options.columns() ?? 80);
  return {
    update(progress) {
      last = progress;
      if (interactive) {
        write(`\r${format(progress)}\u001b[K`);
      } else if (performance.now() - lastPrinted >= 2_000) {
        lastPrinted = performance.now();
        write(`${format(progress)}\n`);
      }
    },
    end() {
      if (last !== undefined) write(interactive ? `\r${format(last)}\u001b[K\n` : `${format(last)}\n`);
      last = undefined;
      lastPrinted = Number.NEGATIVE_INFINITY;
    },
  };
}

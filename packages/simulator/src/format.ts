/**
 * A duration for people: `0 ms` to `9999 ms`, then seconds, minutes and hours with one decimal; `never`
 * for `Infinity`.
 *
 * @example
 * formatDuration(42.4); // "42 ms"
 * formatDuration(12_345); // "12.3 s"
 */
export function formatDuration(ms: number): string {
  if (ms === Number.POSITIVE_INFINITY) return "never";
  if (ms < 10_000) return `${Math.round(ms)} ms`;
  if (ms < 600_000) return `${(ms / 1_000).toFixed(1)} s`;
  if (ms < 36_000_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/**
 * A share as a percentage: `97.3%`, with two decimals just under 100% (`99.92%`), `-` for none.
 *
 * @example
 * formatShare(0.8654); // "86.5%"
 */
export function formatShare(share: number | undefined): string {
  if (share === undefined || !Number.isFinite(share)) return "-";
  const percent = share * 100;
  return `${percent > 99 && percent < 100 ? percent.toFixed(2) : percent.toFixed(1)}%`;
}

/**
 * Reads back what {@link formatDuration} wrote, in ms (`never` is `Infinity`).
 *
 * @example
 * parseDuration("12.3 s"); // 12300
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (trimmed === "never") return Number.POSITIVE_INFINITY;
  const match = /^(-?[\d.]+)\s*(ms|s|min|h)$/.exec(trimmed);
  if (match === null) throw new TypeError(`Expected a duration such as "12 ms" or "3.4 s", got "${text}"`);
  const factor = { ms: 1, s: 1_000, min: 60_000, h: 3_600_000 }[match[2] as "ms" | "s" | "min" | "h"];
  return Number(match[1]) * factor;
}

/**
 * A rate per second with three significant digits.
 *
 * @example
 * formatRate(12.34); // "12.3 /s"
 */
export function formatRate(perSecond: number): string {
  if (perSecond >= 100) return `${Math.round(perSecond)} /s`;
  if (perSecond >= 10) return `${perSecond.toFixed(1)} /s`;
  return `${perSecond.toFixed(2)} /s`;
}

/**
 * Lays out rows as a plain-text table: the first column left-aligned, the others right-aligned.
 *
 * @example
 * layoutTable([["", "FIFO"], ["p95", "5000 ms"]]);
 */
export function layoutTable(rows: readonly (readonly string[])[], gap = 3): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  }
  const space = " ".repeat(gap);
  return rows
    .map((row) =>
      row
        .map((cell, index) => (index === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[index]!)))
        .join(space)
        .trimEnd(),
    )
    .join("\n");
}

/**
 * The sweep's live progress line, fitted to `columns` (one less, so the cursor never wraps it): count,
 * elapsed time and an ETA from the pace so far, shorter forms on narrow terminals.
 *
 * @example
 * formatSweepProgress(3, 12, 9_000, 80); // "sweep: 3/12 configurations | 9000 ms | ETA 27.0 s"
 * formatSweepProgress(3, 12, 9_000, 30); // "sweep 3/12 | ETA 27.0 s"
 */
export function formatSweepProgress(done: number, total: number, elapsedMs: number, columns = 80): string {
  const width = Math.max(1, Math.floor(Number.isFinite(columns) ? columns : 80) - 1);
  const eta = done > 0 && done < total ? (elapsedMs / done) * (total - done) : undefined;
  const etaText = eta === undefined ? "" : `ETA ${formatDuration(eta)}`;
  const forms = [
    [`sweep: ${done}/${total} configurations`, formatDuration(elapsedMs), etaText],
    [`sweep ${done}/${total}`, etaText],
    [`${done}/${total}`],
  ].map((parts) => parts.filter((part) => part !== "").join(" | "));
  const line = forms.find((form) => form.length <= width) ?? forms[forms.length - 1]!;
  return line.length <= width ? line : line.slice(0, width);
}

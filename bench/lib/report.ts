import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeMachine, type Machine, machine, revision } from "./machine.js";

/** One printed table; cells are already formatted. */
export interface Table {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
  readonly note?: string;
}

/** A published goal and whether this run met it. */
export interface Goal {
  readonly name: string;
  readonly target: string;
  readonly measured: string;
  readonly holds: boolean;
}

/** What one part hands back: tables for people, goals to check, raw numbers to keep. */
export interface PartReport {
  readonly part: string;
  readonly title: string;
  /** How it was measured, one sentence per entry. */
  readonly method: readonly string[];
  readonly tables: readonly Table[];
  readonly goals: readonly Goal[];
  readonly notes: readonly string[];
  /** Every measured number, written as JSON into the results file. */
  readonly raw: unknown;
}

export interface RunInfo {
  readonly quick: boolean;
  readonly argv: readonly string[];
  readonly startedAt: Date;
  readonly seconds: number;
}

function widths(table: Table): number[] {
  return table.columns.map((column, index) =>
    Math.max(column.length, ...table.rows.map((row) => (row[index] ?? "").length)),
  );
}

function consoleTable(table: Table): string {
  const width = widths(table);
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, index) => (index === 0 ? cell.padEnd(width[index]!) : cell.padStart(width[index]!)))
      .join("  ");
  const out = [
    `  ${table.title}`,
    `  ${line(table.columns)}`,
    `  ${width.map((w) => "-".repeat(w)).join("  ")}`,
  ];
  for (const row of table.rows) out.push(`  ${line(row)}`);
  if (table.note !== undefined) out.push(`  (${table.note})`);
  return out.join("\n");
}

export function goalLine(goal: Goal): string {
  return `${goal.holds ? "PASS" : "MISS"}  ${goal.name}: ${goal.measured} (goal ${goal.target})`;
}

/** The report as printed on the terminal. */
export function renderConsole(report: PartReport, run: RunInfo): string {
  const out = [`\n== ${report.title}${run.quick ? " (quick: tiny sizes, figures not meaningful)" : ""} ==`];
  for (const table of report.tables) out.push("", consoleTable(table));
  if (report.notes.length > 0) out.push("", ...report.notes.map((note) => `  note: ${note}`));
  if (report.goals.length > 0) out.push("", ...report.goals.map((goal) => `  ${goalLine(goal)}`));
  return out.join("\n");
}

function markdownTable(table: Table): string {
  const cell = (text: string): string => text.replaceAll("|", "\\|");
  const out = [
    `### ${table.title}`,
    "",
    `| ${table.columns.map(cell).join(" | ")} |`,
    `| ${table.columns.map((_, index) => (index === 0 ? "---" : "---:")).join(" | ")} |`,
    ...table.rows.map((row) => `| ${row.map(cell).join(" | ")} |`),
  ];
  if (table.note !== undefined) out.push("", table.note);
  return out.join("\n");
}

/** The report as written to `bench/results/<date>-<part>.md`. */
export function renderMarkdown(report: PartReport, run: RunInfo, info: Machine = machine()): string {
  const out = [
    `# ${report.title}`,
    "",
    `- Date: ${run.startedAt.toISOString()}${run.quick ? " (quick run: tiny sizes, figures not meaningful)" : ""}`,
    `- Machine: ${describeMachine(info)}`,
    `- Code: ${revision()}`,
    `- Command: \`pnpm bench ${run.argv.join(" ")}\` (${run.seconds.toFixed(0)} s)`,
    "",
    "## Method",
    "",
    ...report.method.map((line) => `- ${line}`),
    "",
    "## Goals",
    "",
    ...(report.goals.length === 0
      ? ["None for this part."]
      : report.goals.map((goal) => `- ${goalLine(goal)}`)),
    "",
    "## Results",
  ];
  for (const table of report.tables) out.push("", markdownTable(table));
  if (report.notes.length > 0) out.push("", "## Notes", "", ...report.notes.map((note) => `- ${note}`));
  out.push("", "## Raw numbers", "", "```json", JSON.stringify(report.raw, rawReplacer, 1), "```", "");
  return out.join("\n");
}

function rawReplacer(_key: string, value: unknown): unknown {
  return typeof value === "number" && !Number.isInteger(value) ? Number(value.toPrecision(6)) : value;
}

/** `YYYY-MM-DD` in local time, the prefix of result files. */
export function dateStamp(date: Date): string {
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * Writes the markdown report into `dir`, creating it and its parents when missing (`bench/results/` is
 * regenerated, not kept in git), and returns its path.
 */
export function writeReport(dir: string, report: PartReport, run: RunInfo): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${dateStamp(run.startedAt)}-${report.part}.md`);
  writeFileSync(path, renderMarkdown(report, run));
  return path;
}

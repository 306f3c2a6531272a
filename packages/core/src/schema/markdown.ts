import { LIVE_KEYS, SCHEDULER, TENANT } from "../options.js";
import { TASK } from "../task-option-schema.js";
import type { Node, Shape } from "./schema.js";

/** A README table of options: the marker's name, the first column's heading and the options it lists. */
export interface OptionTable {
  readonly name: string;
  readonly heading: string;
  readonly shape: Shape;
  /** Top-level keys `update()` may change: a column says so when given. */
  readonly live?: readonly string[];
}

/** The tables of packages/core/README.md, each between `<!-- options:start NAME -->` and `<!-- options:end -->`. */
const CORE_TABLES: readonly OptionTable[] = [
  { name: "scheduler", heading: "scheduler option", shape: SCHEDULER, live: LIVE_KEYS },
  { name: "tenant", heading: "tenant option (`tenants.<key>` or `tenantDefaults`)", shape: TENANT },
  { name: "task", heading: "per-call option (`run`, `acquire`, `tryAcquire`)", shape: TASK },
];

function shownDefault(node: Node<unknown>): string {
  if (node.shownDefault !== undefined) return node.shownDefault;
  const value = node.default;
  if (value === undefined) return "none";
  if (typeof value === "number") {
    return Number.isFinite(value) ? value.toLocaleString("en-US") : "`Infinity`";
  }
  return `\`${JSON.stringify(value)}\``;
}

/** Long numbers with thousands separators (the error messages print them plain). */
function grouped(text: string): string {
  return text.replace(/\d{5,}/g, (digits) => Number(digits).toLocaleString("en-US"));
}

/**
 * One row per option; a record lists its entries' fields, a list its items' fields (each after a row of
 * its own), an object its fields (unless it has a range of its own).
 */
function rows(shape: Shape, prefix: string, live: readonly string[] | undefined): string[][] {
  const out: string[][] = [];
  for (const [key, node] of Object.entries(shape)) {
    const name = `${prefix}${key}`;
    const many = node.entry !== undefined || node.items?.shape !== undefined;
    const expands = node.shownRange === undefined && (node.shape !== undefined || many);
    if (!expands || many) {
      const range = grouped(
        node.shownRange ?? (node.entry !== undefined ? "names of 1 to 64 characters" : node.range),
      );
      const row = [`\`${name}\``, range, shownDefault(node), node.doc];
      out.push(live === undefined ? row : [...row, live.includes(key) ? "yes" : "no"]);
    }
    if (!expands) continue;
    const inner = node.entry?.shape ?? node.items?.shape ?? node.shape!;
    const innerPrefix = node.entry !== undefined ? `${name}.<name>.` : node.items ? `${name}[].` : `${name}.`;
    const innerRows = rows(inner, innerPrefix, undefined);
    const liveMark = live === undefined ? [] : [live.includes(key) ? "yes" : "no"];
    out.push(...innerRows.map((row) => [...row, ...liveMark]));
  }
  return out;
}

/** A Markdown table with its columns padded to one width. */
function markdown(header: readonly string[], body: readonly string[][]): string {
  const cells = [header, ...body].map((row) => row.map((cell) => cell.replaceAll("|", "\\|")));
  const widths = header.map((_, i) => Math.max(3, ...cells.map((row) => row[i]!.length)));
  const line = (row: readonly string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`;
  const rule = `| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`;
  return [line(cells[0]!), rule, ...cells.slice(1).map(line)].join("\n");
}

function table({ heading, shape, live }: OptionTable): string {
  const header = [heading, "range", "default", "what it does"];
  return markdown(live === undefined ? header : [...header, "`update()`"], rows(shape, "", live));
}

/**
 * A README table of the options in `shape` (one row per field, nested fields as `a.b`, named entries as
 * `a.<name>.b`), for packages that declare their own sections with the same combinators.
 *
 * @example
 * optionTable("gateway option", GATEWAY); // "| gateway option | range | default | what it does |\n…"
 */
export function optionTable(heading: string, shape: Shape): string {
  return table({ name: heading, heading, shape });
}

/**
 * `readme` with each of `tables` (the core's by default) regenerated from its schema between
 * `<!-- options:start NAME -->` and `<!-- options:end -->`. A README whose tables are current comes back
 * unchanged: the test that compares the two keeps them from going stale.
 *
 * @example
 * writeFileSync(path, withOptionTables(readFileSync(path, "utf8"), [{ name: "batches", heading: "option", shape: BATCHES }]));
 */
export function withOptionTables(readme: string, tables: readonly OptionTable[] = CORE_TABLES): string {
  let out = readme;
  for (const each of tables) {
    const start = `<!-- options:start ${each.name} -->`;
    const end = "<!-- options:end -->";
    const from = out.indexOf(start);
    const to = out.indexOf(end, from);
    if (from === -1 || to === -1) throw new Error(`the README has no \`${start}\` … \`${end}\``);
    out = `${out.slice(0, from + start.length)}\n\n${table(each)}\n\n${out.slice(to)}`;
  }
  return out;
}

// How much code the options take, against the least that could declare them: the lines of every
// options, schema, config, scenario, validate and fields module (tests excluded) per package, and a
// floor made of the schema kit itself plus each documented option declared once, in one call with its
// range, default and meaning, wrapped at the repository's 110 columns. The documented options are the
// rows of the README tables generated from the schemas (`pnpm options:tables`); a row shown in several
// READMEs (the adapters share theirs) counts once. Each module's lines are also split by what they
// hold (the kit, option declarations, comments, imports, other code), so the figure says where the rest
// goes. Usage:
//   node --conditions=source --import tsx bench/tools/options-size.ts [--packages core,batches,...]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import ts from "typescript";

const ROOT = new URL("../../", import.meta.url).pathname;
const MODULE = /(option|schema|config|scenario|validate|fields)[^/]*\.ts$/;
const WIDTH = 110;
/** `name: node(range, { default: …, doc: "…" }),` around a row's own text, indented once. */
const SYNTAX = 36;
/** The schema kit every declaration is built with, part of the floor. */
const KIT = ["packages/core/src/schema/schema.ts", "packages/core/src/schema/json-schema.ts"];

const { values } = parseArgs({ options: { packages: { type: "string" } } });
const all = readdirSync(join(ROOT, "packages")).filter((name) =>
  statSync(join(ROOT, "packages", name, "src"), { throwIfNoEntry: false })?.isDirectory(),
);
const chosen = values.packages === undefined ? all : values.packages.split(",");

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : files(path);
    return MODULE.test(path) && !path.endsWith(".test.ts") ? [path] : [];
  });
}

const lines = (path: string): number => readFileSync(path, "utf8").split("\n").length - 1;

type Part = "kit" | "declarations" | "comments" | "imports" | "blank" | "code";
const parts: Record<Part, number> = { kit: 0, declarations: 0, comments: 0, imports: 0, blank: 0, code: 0 };

/**
 * Adds a module's lines to {@link parts} and returns how many it has. A declaration is a property whose value carries a `doc:`
 * (every kit node has one), with the comments above it; a line is counted once, in the first part
 * that holds it.
 */
function split(path: string): number {
  const text = readFileSync(path, "utf8");
  const rows = text.split("\n").slice(0, -1);
  if (KIT.some((kit) => path.endsWith(kit))) {
    parts.kit += rows.length;
    return rows.length;
  }
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const declared = new Set<number>();
  const imported = new Set<number>();
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      for (let line = lineOf(node.getStart()); line <= lineOf(node.getEnd()); line++) imported.add(line);
      return;
    }
    if (ts.isPropertyAssignment(node) && /\bdoc:/.test(node.initializer.getText())) {
      for (let line = lineOf(node.getFullStart()) + 1; line <= lineOf(node.getEnd()); line++)
        declared.add(line);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  rows.forEach((row, line) => {
    if (declared.has(line)) parts.declarations += 1;
    else if (row.trim() === "") parts.blank += 1;
    else if (imported.has(line)) parts.imports += 1;
    else if (/^\s*(\/\*\*?|\*|\/\/)/.test(row)) parts.comments += 1;
    else parts.code += 1;
  });
  return rows.length;
}

/** The rows of a README's generated option tables, each as its cells. */
function tableRows(readme: string): string[][] {
  const rows: string[][] = [];
  for (const [, body] of readme.matchAll(/<!-- options:start[^>]*-->([\s\S]*?)<!-- options:end/g)) {
    const table = body!.split("\n").filter((line) => line.startsWith("|"));
    for (const line of table.slice(2))
      rows.push(
        line
          .split("|")
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
  }
  return rows;
}

let total = 0;
const seen = new Set<string>();
let declarations = 0;
console.log("| package | options modules, lines | documented options |");
console.log("| --- | ---: | ---: |");
for (const name of chosen) {
  const modules = files(join(ROOT, "packages", name, "src"));
  const count = modules.reduce((sum, path) => sum + split(path), 0);
  let readme = "";
  try {
    readme = readFileSync(join(ROOT, "packages", name, "README.md"), "utf8");
  } catch {}
  let documented = 0;
  for (const cells of tableRows(readme)) {
    const key = cells.slice(0, 4).join("|");
    if (seen.has(key)) continue;
    seen.add(key);
    documented += 1;
    // option, range (as node arguments), default, meaning: one declaration wrapped at the line width
    const text = cells.slice(0, 4).reduce((sum, cell) => sum + cell.length, 0);
    declarations += Math.ceil((text + SYNTAX) / WIDTH);
  }
  total += count;
  console.log(`| ${name} | ${count} | ${documented} |`);
}
const kit = KIT.reduce((sum, path) => sum + lines(join(ROOT, path)), 0);
console.log(`\noptions code: ${total} lines; ${seen.size} documented options`);
console.log(
  `floor: ${kit + declarations} lines (schema kit ${kit} + one wrapped declaration per option ${declarations})`,
);
console.log(
  `by part: ${Object.entries(parts)
    .map(([part, count]) => `${part} ${count}`)
    .join(", ")}`,
);
// The formatter breaks a declaration longer than a line into one line per field, so the declarations
// as written, with the kit, are the floor the repository's formatter allows.
console.log(
  `floor as formatted: ${parts.kit + parts.declarations} lines (schema kit + declarations as written)`,
);
console.log(`options code over the floor: ${(total / (kit + declarations)).toFixed(2)}x`);

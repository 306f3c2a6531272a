// How much code the options take, against the least that could declare them: the lines of every
// options, schema, config, scenario, validate and fields module (tests excluded) per package, and a
// floor made of the schema kit itself plus each documented option declared once, in one call with its
// range, default and meaning, wrapped at the repository's 110 columns. The documented options are the
// rows of the README tables generated from the schemas (`pnpm options:tables`); a row shown in several
// READMEs (the adapters share theirs) counts once. Usage:
//   node --conditions=source --import tsx bench/tools/options-size.ts [--packages core,batches,...]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

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
  const count = files(join(ROOT, "packages", name, "src")).reduce((sum, path) => sum + lines(path), 0);
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
console.log(`options code over the floor: ${(total / (kit + declarations)).toFixed(2)}x`);

import { optionTable } from "@llm-scheduler/core/kit";
import { gatewayJsonSchema } from "./json-schema.js";
import { GATEWAY, MODEL_OWN } from "./schema.js";

/** The README's reference tables, between `<!-- config:start NAME -->` and `<!-- config:end -->`. */
const TABLES: Readonly<Record<string, () => string>> = {
  gateway: () => {
    const { models: _models, ...top } = GATEWAY;
    return optionTable("option", top);
  },
  model: () => optionTable("`models.<name>.` option", MODEL_OWN),
};

/**
 * `readme` with its configuration tables made again from the schema (a README that is current comes
 * back unchanged, which the test checks).
 *
 * @example
 * writeFileSync(path, withConfigTables(readFileSync(path, "utf8")));
 */
export function withConfigTables(readme: string): string {
  let out = readme;
  for (const [name, make] of Object.entries(TABLES)) {
    const start = `<!-- config:start ${name} -->`;
    const end = "<!-- config:end -->";
    const from = out.indexOf(start);
    const to = out.indexOf(end, from);
    if (from === -1 || to === -1) throw new Error(`the README has no \`${start}\` … \`${end}\``);
    out = `${out.slice(0, from + start.length)}\n\n${make()}\n\n${out.slice(to)}`;
  }
  return out;
}

/** The text of `gateway.schema.json`. */
export function schemaFileText(): string {
  return `${JSON.stringify(gatewayJsonSchema(), null, 2)}\n`;
}

import { parseDocument } from "yaml";
import { ConfigError } from "./errors.js";

/**
 * The tree of a YAML or JSON file (JSON is read as YAML 1.2, which it is). A syntax error is one line
 * with its position and kind only: the parser's own message quotes the source, which may hold a key.
 *
 * @example
 * parseText("listen: { port: 8080 }"); // { listen: { port: 8080 } }
 */
export function parseText(text: string): unknown {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const error = document.errors[0];
  if (error !== undefined) {
    const at = error.linePos?.[0];
    const where = at === undefined ? "" : ` at line ${at.line}, column ${at.col}`;
    throw new ConfigError(`not valid YAML or JSON${where} (${error.code})`);
  }
  const tree = document.toJS({ maxAliasCount: 100 }) as unknown;
  if (tree === null || typeof tree !== "object" || Array.isArray(tree)) {
    throw new ConfigError("the file must hold an object (listen, models, keys, …)");
  }
  return tree;
}

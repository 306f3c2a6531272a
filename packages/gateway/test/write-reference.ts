// Writes gateway.schema.json and the README's configuration tables from the schema:
// pnpm gateway:reference
import { readFileSync, writeFileSync } from "node:fs";
import { schemaFileText, withConfigTables } from "../src/config/reference.js";

writeFileSync(new URL("../gateway.schema.json", import.meta.url), schemaFileText());
const readme = new URL("../README.md", import.meta.url);
writeFileSync(readme, withConfigTables(readFileSync(readme, "utf8")));

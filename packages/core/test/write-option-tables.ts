// Regenerates the option tables of packages/core/README.md from the options' schema:
// pnpm options:tables
import { readFileSync, writeFileSync } from "node:fs";
import { withOptionTables } from "../src/schema/markdown.js";

const path = new URL("../README.md", import.meta.url);
writeFileSync(path, withOptionTables(readFileSync(path, "utf8")));

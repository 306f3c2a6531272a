// Regenerates the option tables of every README listed in option-tables.ts from the options' schemas:
// pnpm options:tables
import { readFileSync, writeFileSync } from "node:fs";
import { READMES, regenerated } from "./option-tables.js";

for (const entry of READMES) {
  const path = new URL(`../../${entry.path}`, import.meta.url);
  writeFileSync(path, regenerated(entry, readFileSync(path, "utf8")));
}

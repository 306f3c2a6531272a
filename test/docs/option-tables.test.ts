import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { READMES, regenerated } from "./option-tables.js";

describe("the READMEs' option tables", () => {
  it.each(READMES.map((entry) => [entry.path, entry] as const))(
    "%s holds what the schema generates (run `pnpm options:tables` after changing an option)",
    (path, entry) => {
      const readme = readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
      expect(regenerated(entry, readme)).toBe(readme);
    },
  );
});

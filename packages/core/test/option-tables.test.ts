import { describe, expect, it } from "vitest";
import { withOptionTables } from "../src/schema/markdown.js";

// That the READMEs hold what the schemas generate is checked in test/docs/option-tables.test.ts.
describe("the README's option tables", () => {
  it("are regenerated between the markers, the rest untouched", () => {
    const stale = ["intro", "<!-- options:start scheduler -->", "| old |", "<!-- options:end -->", "middle"];
    const readme = [
      ...stale,
      "<!-- options:start tenant -->",
      "<!-- options:end -->",
      "<!-- options:start task -->",
      "<!-- options:end -->",
      "outro",
    ].join("\n");
    const out = withOptionTables(readme);
    expect(out).not.toContain("| old |");
    expect(out).toMatch(/^intro\n<!-- options:start scheduler -->\n\n\| scheduler option/);
    expect(out).toContain("| `priorities.<name>.weight`");
    expect(out).toContain("| `burstTokens`");
    expect(out).toContain("| `claimedRetry`");
    expect(out.endsWith("<!-- options:end -->\noutro")).toBe(true);
  });

  it("refuse a README without the markers", () => {
    expect(() => withOptionTables("no tables")).toThrow(/options:start scheduler/);
  });
});

// bench/results/ is not kept in git, so a fresh checkout has no such folder: the first run of a part
// must create it (and any folder given with --out) when it writes its result file.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type PartReport, writeReport } from "../../bench/lib/report.js";

const report: PartReport = {
  part: "fairness",
  title: "Fairness by tokens",
  method: ["A virtual-time run."],
  tables: [{ title: "Served", columns: ["tenant", "tokens"], rows: [["a", "1"]] }],
  goals: [{ name: "gap", target: "<= 10%", measured: "1.5%", holds: true }],
  notes: [],
  raw: { gap: 0.015 },
};

const run = { quick: true, argv: ["fairness", "--quick"], startedAt: new Date(2026, 11, 2), seconds: 1 };

describe("writeReport", () => {
  let root: string | undefined;
  afterEach(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  it("creates the results folder, nested ones included, when it does not exist", () => {
    root = mkdtempSync(join(tmpdir(), "bench-report-"));
    const dir = join(root, "results", "quick");
    expect(existsSync(dir)).toBe(false);

    const path = writeReport(dir, report, run);

    expect(path).toBe(join(dir, "2026-12-02-fairness.md"));
    const text = readFileSync(path, "utf8");
    expect(text).toContain("# Fairness by tokens");
    expect(text).toContain("PASS  gap: 1.5% (goal <= 10%)");
  });
});

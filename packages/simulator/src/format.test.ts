import { describe, expect, it } from "vitest";
import { formatDuration, formatRate, formatSweepProgress, layoutTable, parseDuration } from "./format.js";
import { percentiles } from "./stats.js";

describe("formatDuration and parseDuration", () => {
  it.each([
    [0, "0 ms"],
    [42.4, "42 ms"],
    [9_999, "9999 ms"],
    [12_345, "12.3 s"],
    [720_000, "12.0 min"],
    [86_400_000, "24.0 h"],
    [Number.POSITIVE_INFINITY, "never"],
  ])("writes %d as %s and reads it back", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBeCloseTo(ms, -2);
  });

  it("refuses what is not a duration", () => {
    expect(() => parseDuration("soon")).toThrow('got "soon"');
  });

  it("writes rates with three significant digits", () => {
    expect([formatRate(123.4), formatRate(12.34), formatRate(1.234)]).toEqual([
      "123 /s",
      "12.3 /s",
      "1.23 /s",
    ]);
  });

  it("lays out a table with the first column left and the others right", () => {
    expect(
      layoutTable(
        [
          ["", "a", "bb"],
          ["row", "1", "22"],
        ],
        1,
      ),
    ).toBe("    a bb\nrow 1 22");
  });
});

describe("percentiles", () => {
  it("takes nearest-rank percentiles of sorted values", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentiles(values)).toEqual({ count: 100, p50: 50, p95: 95, p99: 99, max: 100 });
    expect(percentiles([])).toEqual({ count: 0, p50: 0, p95: 0, p99: 0, max: 0 });
    expect(percentiles([1, 2, Number.POSITIVE_INFINITY]).p95).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("formatSweepProgress", () => {
  it("shows count, elapsed time and an ETA from the pace so far when there is room", () => {
    expect(formatSweepProgress(3, 12, 9_000, 80)).toBe("sweep: 3/12 configurations | 9000 ms | ETA 27.0 s");
  });

  it("fits every terminal width, one column spare, dropping parts before cutting", () => {
    for (let columns = 1; columns <= 120; columns++) {
      const line = formatSweepProgress(123, 4_567, 3_600_000, columns);
      expect(line.length, `${columns} columns`).toBeLessThanOrEqual(Math.max(1, columns - 1));
      expect(line.length).toBeGreaterThan(0);
    }
    expect(formatSweepProgress(3, 12, 9_000, 30)).toBe("sweep 3/12 | ETA 27.0 s");
    expect(formatSweepProgress(3, 12, 9_000, 12)).toBe("3/12");
  });

  it("has no ETA before the first or after the last configuration, and survives odd widths", () => {
    expect(formatSweepProgress(0, 12, 0, 80)).toBe("sweep: 0/12 configurations | 0 ms");
    expect(formatSweepProgress(12, 12, 5_000, 80)).toBe("sweep: 12/12 configurations | 5000 ms");
    expect(formatSweepProgress(1, 2, 10, Number.NaN)).toContain("sweep: 1/2 configurations");
  });
});

import { describe, expect, it } from "vitest";
import { demoScenario } from "./demo-scenario.js";
import { resolveScenario } from "./scenario-resolve.js";
import { simulate } from "./simulate.js";
import { renderComparison } from "./table.js";

const cells = (table: string, name: string) =>
  table
    .split("\n")
    .find((line) => line.startsWith(name))
    ?.slice(name.length)
    .trim()
    .split(/\s{2,}/);

describe("renderComparison", () => {
  it("shows `-` for percentiles of no chat request, and says there is nothing to compare", async () => {
    const scenario = resolveScenario({
      durationMs: 1_000,
      chat: { ratePerSec: 0 },
      batch: { tenants: [{ name: "etl", items: 5 }] },
    });
    const results = [
      await simulate(scenario, { gateway: "fifo" }),
      await simulate(scenario, { gateway: "scheduler" }),
    ];
    const table = renderComparison(scenario, results);
    expect(cells(table, "interactive queue wait p95")).toEqual(["-", "-"]);
    expect(cells(table, "interactive TTFT p99")).toEqual(["-", "-"]);
    expect(table).toContain("no chat request was sent, so there is nothing to compare");
    expect(table).not.toMatch(/x lower/);
  });

  it("says lower or higher the right way round", async () => {
    const scenario = resolveScenario(demoScenario({ durationMs: 3_000 }));
    const fifo = await simulate(scenario, { gateway: "fifo" });
    const scheduled = await simulate(scenario, { gateway: "scheduler" });
    expect(renderComparison(scenario, [fifo, scheduled])).toMatch(/\(\d+(\.\d)?x lower\)$/);
    expect(renderComparison(scenario, [scheduled, fifo])).toMatch(/\(\d+(\.\d)?x higher\)$/);
    expect(renderComparison(scenario, [fifo, fifo])).toMatch(/\(about the same\)$/);
  });
});

import { describe, expect, it } from "vitest";
import { demoScenario } from "./demo-scenario.js";
import { renderHtmlReport } from "./report-html.js";
import { resolveScenario } from "./scenario-resolve.js";
import { simulate } from "./simulate.js";
import { renderComparison } from "./table.js";

describe("renderHtmlReport", () => {
  it("is one self-contained page: the table, and three charts per run side by side", async () => {
    const scenario = resolveScenario(demoScenario({ durationMs: 3_000 }));
    const results = [
      await simulate(scenario, { gateway: "fifo" }),
      await simulate(scenario, { gateway: "scheduler" }),
    ];
    const table = renderComparison(scenario, results);
    const html = renderHtmlReport({
      title: "A <test> report",
      scenario,
      results,
      table,
      notes: ["note & more"],
    });
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain("<title>A &#60;test&#62; report</title>");
    expect(html).toContain("note &#38; more");
    expect(html).toContain("interactive queue wait p95");
    // Slot use and the ideal makespan, beside the makespan, with the split of the difference.
    for (const row of ["ideal batch makespan", "batch makespan / ideal", "slots busy while queued"]) {
      expect(html).toContain(row);
    }
    expect(html).toMatch(/llm-scheduler: batch makespan .* of chat&#39;s own work/);
    expect(html.match(/<svg /g)).toHaveLength(7); // the makespan bars, then three charts per run
    expect(html).toContain("Batch makespan: FIFO's, chat's own work");
    expect(html.match(/<title>idle slots and caps: /g)?.length).toBeGreaterThanOrEqual(1);
    for (const title of [
      "queue wait CDF per priority",
      "queue depth over time",
      "in flight upstream over time",
    ]) {
      expect(html).toContain(`FIFO: ${title}`);
      expect(html).toContain(`llm-scheduler: ${title}`);
    }
    expect(html).not.toMatch(/<script|<link|src=|https?:\/\/(?!www\.w3\.org)/);
    expect(html).not.toMatch(/NaN|Infinity/);
    // Time axes read in a unit chosen by their range (a 3 s scenario: seconds), never raw numbers.
    expect(html.match(/>time \(s\)</g)).toHaveLength(4);
    expect(html).toContain(">1 s<");
  });
});

import { describe, expect, it } from "vitest";
import { demoScenario } from "./demo-scenario.js";
import { formatShare } from "./format.js";
import { resolveScenario } from "./scenario-resolve.js";
import { simulate } from "./simulate.js";
import { renderComparison, tableLegend } from "./table.js";

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

  it("shows slot use and the ideal makespan: FIFO is its own ideal, idle reserved slots show as such", async () => {
    const base = demoScenario({ durationMs: 3_000 });
    const scenario = resolveScenario(base);
    const fifo = await simulate(scenario, { gateway: "fifo" });
    const reserved = await simulate(scenario, { gateway: "scheduler" });
    const priorities = base.scheduler!.priorities!;
    const unreserved = await simulate(
      resolveScenario({
        ...base,
        scheduler: { priorities: { ...priorities, interactive: { ...priorities.interactive, reserved: 0 } } },
      }),
      { gateway: "scheduler" },
    );
    const table = renderComparison(scenario, [fifo, reserved, unreserved]);
    expect(cells(table, "batch makespan / ideal")?.[0]).toBe("1.00x");
    expect(cells(table, "ideal batch makespan")?.[0]).toBe(cells(table, "batch makespan")?.[0]);
    expect(cells(table, "slots busy while queued")?.[0]).toBe("100.0%");
    // Two of eight slots reserved for chat sit idle while the batch waits and no chat does.
    expect(reserved.slots.utilizationWhileWaiting).toBeLessThan(0.95);
    expect(reserved.slots.idleReservedMs).toBeGreaterThan(0);
    expect(reserved.slots.idleReservedMs).toBeCloseTo(reserved.slots.idleWhileWaitingMs, 6);
    // Without a reserve nothing idles while anything waits.
    expect(unreserved.slots.utilizationWhileWaiting).toBe(1);
    expect(unreserved.slots.idleReservedMs).toBe(0);
    // The scheduler serves chat inside the batch window that FIFO left to time out.
    expect(reserved.slots.chatBusyInBatchMs).toBeGreaterThan(fifo.slots.chatBusyInBatchMs);
    expect(tableLegend).toContain("ideal: the first run's (FIFO's) makespan");
  });
});

describe("formatShare", () => {
  it("prints a percentage, with two decimals just under 100%, and `-` for no value", () => {
    expect(formatShare(0.8654)).toBe("86.5%");
    expect(formatShare(0.99923)).toBe("99.92%");
    expect(formatShare(1)).toBe("100.0%");
    expect(formatShare(undefined)).toBe("-");
    expect(formatShare(Number.NaN)).toBe("-");
  });
});

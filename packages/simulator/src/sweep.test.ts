import { describe, expect, it } from "vitest";
import type { Scenario } from "./scenario.js";
import { resolveScenario } from "./scenario-resolve.js";
import { renderSweep, runSweep } from "./sweep.js";
import { parseSweep } from "./sweep-spec.js";
import { winningConfig } from "./sweep-winner.js";

const scenario: Scenario = {
  name: "sweep-test",
  durationMs: 20_000,
  upstream: { parallel: 4 },
  gateway: { maxConcurrency: 4 },
  chat: { ratePerSec: 1 },
  batch: { tenants: [{ name: "etl", items: 40 }] },
};
const axes = parseSweep(["batch.weight=1,4", "interactive.reserved=0,1"], ["interactive", "batch"]);

describe("renderSweep", () => {
  it("marks no row and prints nothing to paste when no configuration met the goal", async () => {
    const outcome = await runSweep(
      { ...scenario, goal: { interactiveWaitP95Ms: 0, maxUnanswered: 0 } },
      axes,
    );
    expect(outcome.rows.every((row) => !row.check.met)).toBe(true);
    const text = renderSweep(outcome);
    expect(text).not.toContain("best ->");
    expect(text).toContain("no configuration met the goal");
    expect(text).not.toContain("createScheduler(");
    expect(winningConfig(outcome)).toBeUndefined();
    // Beside the makespan: the ratio to the work-conserving ideal and the slot use while anything waited.
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/makespan {2,}vs ideal {2,}busy {2,}max batch wait/);
    expect(lines.find((line) => line.startsWith("FIFO"))).toMatch(/ 1\.00x {2,}100\.0% /);
    const reserved = outcome.rows.map((row) => row.result.slots.idleReservedMs > 0);
    const settings = outcome.rows.map((row) => row.variant.settings[1]!.value);
    expect(reserved).toEqual(settings.map((value) => value === 1)); // only a reserve leaves slots idle
  });

  it("marks the winner and prints its configuration ready to paste into a scenario or createScheduler", async () => {
    const outcome = await runSweep(
      { ...scenario, goal: { interactiveWaitP95Ms: Number.POSITIVE_INFINITY } },
      axes,
    );
    expect(outcome.best?.met).toBe(true);
    const winner = outcome.rows[outcome.best!.index]!;
    const text = renderSweep(outcome);
    expect(text.split("\n").filter((line) => line.startsWith("best ->"))).toHaveLength(1);
    expect(text).toContain(`winning configuration (${winner.variant.label})`);

    const code = /createScheduler\((\{[\s\S]*?\n\})\);/.exec(text)?.[1];
    const options = JSON.parse(code!.replace(/\bInfinity\b/g, '"Infinity"')) as Record<string, unknown>;
    expect(options.maxConcurrency).toBe(4);

    const sections = JSON.parse(`{${text.split("or as the scenario's sections:\n")[1]}}`) as Scenario;
    const pasted = resolveScenario({ ...scenario, ...sections });
    const [weight, reserved] = winner.variant.settings.map((setting) => setting.value);
    expect(pasted.scheduler.priorities?.batch?.weight).toBe(weight);
    expect(pasted.scheduler.priorities?.interactive?.reserved).toBe(reserved);
  });
});

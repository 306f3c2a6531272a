import { describe, expect, it } from "vitest";
import { ScenarioError } from "./scenario-error.js";
import { resolveScenario } from "./scenario-resolve.js";
import { generateWorkload } from "./workload.js";

const scheduled = (rateSchedule: unknown, extra: Record<string, unknown> = {}) =>
  resolveScenario({ durationMs: 400_000, chat: { rateSchedule, ...extra } });

describe("chat.rateSchedule", () => {
  it("sends chat at each step's rate, starting over after the last step", () => {
    const scenario = scheduled({ stepMs: 100_000, ratesPerSec: [4, 0, 1] });
    expect(scenario.chat.ratePerSec).toBeCloseTo(5 / 3);
    const chats = generateWorkload(scenario).requests.filter((r) => r.kind === "chat");
    const inStep = (k: number) => chats.filter((r) => r.at >= k * 100_000 && r.at < (k + 1) * 100_000).length;
    // Expected 400, 0, 100, 400 (the fourth step is the first rate again); Poisson spread about ±20 / ±10.
    expect(inStep(0)).toBeGreaterThan(330);
    expect(inStep(0)).toBeLessThan(470);
    expect(inStep(1)).toBe(0);
    expect(inStep(2)).toBeGreaterThan(65);
    expect(inStep(2)).toBeLessThan(135);
    expect(inStep(3)).toBeGreaterThan(330);
    expect(chats.map((r) => r.key)).toEqual(chats.map((_, i) => `chat-${i}`));
  });

  it("leaves a scenario without a schedule drawing exactly what it drew before", () => {
    const flat = resolveScenario({ durationMs: 400_000, chat: { ratePerSec: 2 } });
    const same = scheduled({ stepMs: 400_000, ratesPerSec: [2] });
    const times = (s: typeof flat) => generateWorkload(s).requests.map((r) => [r.at, r.promptTokens]);
    expect(times(same)).toEqual(times(flat));
  });

  it.each([
    [{ stepMs: 0, ratesPerSec: [1] }, "chat.rateSchedule.stepMs"],
    [{ ratesPerSec: [1] }, "chat.rateSchedule.stepMs"],
    [{ stepMs: 1_000, ratesPerSec: [] }, "chat.rateSchedule.ratesPerSec"],
    [{ stepMs: 1_000, ratesPerSec: [1, -1] }, "chat.rateSchedule.ratesPerSec[1]"],
    [{ stepMs: 1_000, ratesPerSec: [1], every: 2 }, "chat.rateSchedule.every"],
  ])("rejects %j naming the field", (schedule, field) => {
    expect(() => scheduled(schedule)).toThrow(expect.objectContaining({ field }));
  });

  it("refuses a rate and a schedule together", () => {
    expect(() => scheduled({ stepMs: 1_000, ratesPerSec: [1] }, { ratePerSec: 2 })).toThrow(ScenarioError);
  });

  it("passes targetWaitMs and waitTargets through to the scheduler, checked by core", () => {
    const scenario = resolveScenario({
      durationMs: 1_000,
      scheduler: {
        priorities: { interactive: { targetWaitMs: 500 }, batch: {} },
        waitTargets: { windowMs: 2_000 },
      },
    });
    expect(scenario.scheduler.priorities?.interactive?.targetWaitMs).toBe(500);
    expect(() =>
      resolveScenario({
        durationMs: 1_000,
        scheduler: { priorities: { interactive: { targetWaitMs: -1 }, batch: {} } },
      }),
    ).toThrow(expect.objectContaining({ field: "scheduler.priorities.interactive.targetWaitMs" }));
  });
});

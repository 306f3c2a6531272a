import { describe, expect, it } from "vitest";
import { ScenarioError } from "./scenario-error.js";
import { resolveScenario } from "./scenario-resolve.js";

/** The field named by the error `resolveScenario(input)` throws. */
function badField(input: unknown): { field: string; message: string } {
  try {
    resolveScenario(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    const { field, message } = error as ScenarioError;
    return { field, message };
  }
  throw new Error("expected the scenario to be rejected");
}

describe("resolveScenario", () => {
  it("fills every default from a minimal scenario", () => {
    const scenario = resolveScenario({ durationMs: 5_000 });
    expect(scenario).toMatchObject({
      name: "scenario",
      seed: 1,
      durationMs: 5_000,
      upstream: { parallel: 4, ttftMs: 50, prefillMsPerToken: 0.2, tokenMs: 20, slowdown: 1 },
      maxConcurrency: 4,
      chat: { ratePerSec: 1, priority: "interactive", tenant: "chat", timeoutMs: 10_000, retries: 2 },
      batch: { priority: "batch", timeoutMs: Number.POSITIVE_INFINITY, retries: 3, tenants: [] },
      goal: { interactiveWaitP95Ms: 1_000 },
    });
    expect(scenario.scheduler).toEqual({ maxConcurrency: 4 });
  });

  it('reads "Infinity" where JSON cannot say it, and fixed numbers as ranges', () => {
    const scenario = resolveScenario({
      durationMs: 1_000,
      chat: { timeoutMs: "Infinity", maxTokens: 32 },
      scheduler: {
        priorities: { interactive: { queueTimeoutMs: "Infinity" }, batch: { maxWaitMs: "Infinity" } },
      },
    });
    expect(scenario.chat.timeoutMs).toBe(Number.POSITIVE_INFINITY);
    expect(scenario.chat.maxTokens).toEqual({ min: 32, max: 32 });
    expect(scenario.scheduler.priorities?.interactive?.queueTimeoutMs).toBe(Number.POSITIVE_INFINITY);
  });

  it.each([
    [
      {},
      "durationMs",
      "Expected `durationMs` to be a number in (0, 31536000000], got `undefined` (undefined)",
    ],
    [{ durationMs: 0 }, "durationMs", "a number in (0, 31536000000]"],
    [{ durationMs: 1, seed: 1e300 }, "seed", "an integer from 0 to 4294967295"],
    [{ durationMs: 1, seed: -1 }, "seed", "an integer from 0 to 4294967295"],
    [{ durationMs: 1, chat: { ratePerSec: -1 } }, "chat.ratePerSec", "got `-1` (number)"],
    [{ durationMs: 1, chat: { rate: 3 } }, "chat.rate", "Unknown option `chat.rate` (known: `ratePerSec`"],
    [{ durationMs: 1, chat: { ratePerSek: 3 } }, "chat.ratePerSek", "did you mean `ratePerSec`?"],
    [{ durationMs: 1, colour: "red" }, "colour", "Unknown option `colour`"],
    [
      { durationMs: 1, chat: { promptTokens: { min: 50, max: 10 } } },
      "chat.promptTokens.max",
      "an integer from 50 to 10000000",
    ],
    [{ durationMs: 1, chat: { maxTokens: 0 } }, "chat.maxTokens", "an integer from 1 to 10000000"],
    [{ durationMs: 1, upstream: { parallel: 2.5 } }, "upstream.parallel", "an integer from 1 to 100000"],
    [{ durationMs: 1, upstream: { parallel: 1e9 } }, "upstream.parallel", "an integer from 1 to 100000"],
    [
      { durationMs: 1, gateway: { maxConcurrency: 0 } },
      "gateway.maxConcurrency",
      "an integer from 1 to 100000",
    ],
    [{ durationMs: 1e15 }, "durationMs", "a number in (0, 31536000000]"],
    [{ durationMs: 1, chat: { retries: 1e6 } }, "chat.retries", "an integer from 0 to 100"],
    [{ durationMs: 1, chat: { ratePerSec: 1e9 } }, "chat.ratePerSec", "a number from 0 to 100000"],
    [{ durationMs: 1, upstream: { tokenMs: 1e12 } }, "upstream.tokenMs", "a number from 0 to 604800000"],
    [{ durationMs: 1, batch: { tenants: {} } }, "batch.tenants", "an array"],
    [
      {
        durationMs: 1,
        batch: {
          tenants: [
            { name: "a", items: 1 },
            { name: "b", items: -5 },
          ],
        },
      },
      "batch.tenants[1].items",
      "got `-5`",
    ],
    [{ durationMs: 1, batch: { tenants: [{ items: 1 }] } }, "batch.tenants[0].name", "a non-empty string"],
    [
      {
        durationMs: 1,
        batch: {
          tenants: [
            { name: "a", items: 1 },
            { name: "a", items: 1 },
          ],
        },
      },
      "batch.tenants[1].name",
      "unique",
    ],
    [
      { durationMs: 1, chat: { priority: "vip" } },
      "chat.priority",
      "one of the scheduler's priorities (interactive, batch)",
    ],
    [{ durationMs: 1, batch: { priority: "interactive" } }, "batch.priority", "other than chat's"],
    [{ durationMs: 1, goal: { interactiveWaitP95Ms: "fast" } }, "goal.interactiveWaitP95Ms", '"Infinity"'],
    [{ durationMs: 1, scheduler: { maxConcurrency: 4 } }, "scheduler.maxConcurrency", "Unknown option"],
  ])("rejects %j naming `%s`", (input, field, text) => {
    const error = badField(input);
    expect(error.field).toBe(field);
    expect(error.message).toContain(text);
  });

  it("names scheduler fields that core rejects under `scheduler.`", () => {
    const error = badField({
      durationMs: 1,
      scheduler: { priorities: { interactive: {}, batch: { weight: 0 } } },
    });
    expect(error.field).toBe("scheduler.priorities.batch.weight");
    expect(error.message).toMatch(/^Expected `scheduler\.priorities\.batch\.weight` to be/);
  });

  it("names a reserve larger than the gateway limit", () => {
    const error = badField({
      durationMs: 1,
      gateway: { maxConcurrency: 2 },
      scheduler: { priorities: { interactive: { reserved: 3 }, batch: {} } },
    });
    expect(error.field).toMatch(/^scheduler\.priorities/);
  });

  it("refuses a scenario too large to hold in memory", () => {
    const error = badField({ durationMs: 86_400_000, chat: { ratePerSec: 1_000 } });
    expect(error.field).toBe("chat.ratePerSec");
  });
});

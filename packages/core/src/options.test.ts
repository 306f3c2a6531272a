import { describe, expect, it } from "vitest";
import { SchedulerError } from "./errors.js";
import { mergeUpdate, resolveOptions } from "./resolve-options.js";
import { createScheduler } from "./scheduler.js";

describe("resolveOptions", () => {
  it("gives sensible defaults: two priorities, interactive first", () => {
    const options = resolveOptions();
    expect(options.maxConcurrency).toBe(8);
    expect(options.defaultPriority).toBe("interactive");
    expect(options.priorities.map((p) => [p.name, p.weight, p.reserved])).toEqual([
      ["interactive", 5, 1],
      ["batch", 1, 0],
    ]);
    expect(options.priorityByName.get("batch")!.maxWaitMs).toBe(60_000);
  });

  it("ignores undefined fields instead of letting them erase defaults", () => {
    expect(resolveOptions({ maxConcurrency: undefined }).maxConcurrency).toBe(8);
  });

  it.each([
    [{ maxConcurrency: 0 }, "Expected `maxConcurrency` to be an integer from 1 to 1000000, got `0` (number)"],
    [
      { maxConcurrency: 2.5 },
      "Expected `maxConcurrency` to be an integer from 1 to 1000000, got `2.5` (number)",
    ],
    [
      { maxConcurrency: 2 ** 29 },
      "Expected `maxConcurrency` to be an integer from 1 to 1000000, got `536870912` (number)",
    ],
    [
      { priorities: { a: { weight: 0 } } },
      "Expected `priorities.a.weight` to be a number from 0.001 to 1000000, got `0` (number)",
    ],
    [
      { priorities: { a: { weight: 1e-300 } } },
      "Expected `priorities.a.weight` to be a number from 0.001 to 1000000, got `1e-300` (number)",
    ],
    [
      { priorities: { a: { queueTimeoutMs: "5s" } } },
      "Expected `priorities.a.queueTimeoutMs` to be a number of milliseconds above 0 and at most 31536000000 (365 days), or Infinity, got `5s` (string)",
    ],
    [
      { priorities: { a: { queueTimeoutMs: Number.NaN } } },
      "Expected `priorities.a.queueTimeoutMs` to be a number of milliseconds above 0 and at most 31536000000 (365 days), or Infinity, got `NaN` (number)",
    ],
    [
      { priorities: { a: { maxQueue: 1e12 } } },
      "Expected `priorities.a.maxQueue` to be an integer from 1 to 10000000, or Infinity, got `1000000000000` (number)",
    ],
    [
      { priorities: { a: { maxWaitMs: -1 } } },
      "Expected `priorities.a.maxWaitMs` to be a number of milliseconds above 0 and at most 31536000000 (365 days), or Infinity, got `-1` (number)",
    ],
    [
      { maxQueue: 0 },
      "Expected `maxQueue` to be an integer from 1 to 10000000, or Infinity, got `0` (number)",
    ],
    [
      { abortGraceMs: 1e15 },
      "Expected `abortGraceMs` to be a number of milliseconds above 0 and at most 31536000000 (365 days), or Infinity, got `1000000000000000` (number)",
    ],
    [
      { retryWindowMs: 0 },
      "Expected `retryWindowMs` to be a number of milliseconds above 0 and at most 31536000000 (365 days), or Infinity, got `0` (number)",
    ],
    [
      { retryMemory: 1e7 },
      "Expected `retryMemory` to be an integer from 0 to 1000000, got `10000000` (number)",
    ],
    [
      { metricsTenantLimit: -1 },
      "Expected `metricsTenantLimit` to be an integer from 0 to 10000, got `-1` (number)",
    ],
    [
      { maxConcurrency: 2, priorities: { a: { maxConcurrency: 3 } } },
      "Expected `priorities.a.maxConcurrency` to be at most `maxConcurrency` (2), got `3` (number)",
    ],
    [
      { maxConcurrency: 2, priorities: { a: { reserved: 2 }, b: { reserved: 1 } } },
      "Expected `priorities.*.reserved` to be in total at most `maxConcurrency` (2), got `3` (number)",
    ],
    [
      { priorities: {} },
      "Expected `priorities` to be an object with at least one priority, got `{}` (object)",
    ],
    [
      { priorities: JSON.parse('{"__proto__": {}}') },
      "Expected `priority names` to be a name other than `__proto__`, got `__proto__` (string)",
    ],
    [
      { priorities: { ["x".repeat(65)]: {} } },
      "Expected `priority names` to be a non-empty string of at most 64 characters, got `[a string of 65 characters]` (string)",
    ],
    [
      { defaultPriority: "urgent" },
      "Expected `defaultPriority` to be one of `interactive`, `batch`, got `urgent` (string)",
    ],
    [
      { tenants: { a: { weight: -1 } } },
      "Expected `tenants.a.weight` to be a number from 0.01 to 1000, got `-1` (number)",
    ],
    [
      { tenants: { a: { weight: 1e-9 } } },
      "Expected `tenants.a.weight` to be a number from 0.01 to 1000, got `1e-9` (number)",
    ],
  ])("rejects %j with a message naming the field", (options, message) => {
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
    expect(() => resolveOptions(options as any)).toThrow(message);
    try {
      // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
      resolveOptions(options as any);
    } catch (error) {
      expect(error).toBeInstanceOf(SchedulerError);
      expect((error as SchedulerError).code).toBe("INVALID_OPTION");
    }
  });

  it("fails at construction, not at first use", () => {
    expect(() => createScheduler({ maxConcurrency: -1 })).toThrow(SchedulerError);
  });
});

describe("update", () => {
  it("merges priority fields and adds new priorities", () => {
    const merged = mergeUpdate(
      { maxConcurrency: 4, priorities: { a: { weight: 2, reserved: 1 } } },
      { maxConcurrency: 6, priorities: { a: { weight: 3 }, b: { weight: 1 } } },
    );
    expect(merged.maxConcurrency).toBe(6);
    expect(merged.priorities).toEqual({ a: { weight: 3, reserved: 1 }, b: { weight: 1 } });
  });

  it("throws on an invalid update and keeps the options in force", () => {
    const scheduler = createScheduler({ maxConcurrency: 4 });
    expect(() => scheduler.update({ maxConcurrency: 0 })).toThrow(SchedulerError);
    expect(scheduler.options.maxConcurrency).toBe(4);
  });
});

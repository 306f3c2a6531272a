import { createScheduler, SchedulerError } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { resolveAdapterOptions } from "./options.js";

describe("resolveAdapterOptions", () => {
  it("creates a scheduler of its own when none is given", () => {
    const config = resolveAdapterOptions({});
    expect(config.scheduler.options.maxConcurrency).toBe(8);
    expect(config.priority).toBeUndefined();
    expect(config.timeoutMs).toBeUndefined();
  });

  it("keeps the given scheduler and functions", () => {
    const scheduler = createScheduler({ maxConcurrency: 2 });
    const priority = () => "batch";
    const onRejected = () => undefined;
    const config = resolveAdapterOptions({ scheduler, priority, timeoutMs: 50, onRejected });
    expect(config.scheduler).toBe(scheduler);
    expect(config.priority).toBe(priority);
    expect(config.onRejected).toBe(onRejected);
    expect(config.timeoutMs).toBe(50);
  });

  it("treats undefined fields as absent", () => {
    const config = resolveAdapterOptions({ scheduler: undefined, tenant: undefined, timeoutMs: undefined });
    expect(config.tenant).toBeUndefined();
    expect(config.scheduler.options.defaultPriority).toBe("interactive");
  });

  it.each([
    [{ priority: "batch" }, "Expected `priority` to be a function, got `batch` (string)"],
    [{ tenant: 3 }, "Expected `tenant` to be a function, got `3` (number)"],
    [{ onRejected: {} }, "Expected `onRejected` to be a function, got `{}` (object)"],
    [
      { timeoutMs: 0 },
      "Expected `timeoutMs` to be a positive number of milliseconds or Infinity, got `0` (number)",
    ],
    [
      { timeoutMs: "5" },
      "Expected `timeoutMs` to be a positive number of milliseconds or Infinity, got `5` (string)",
    ],
    [
      { scheduler: {} },
      "Expected `scheduler` to be a scheduler made by createScheduler(), got `{}` (object)",
    ],
    [
      { priorty: () => "x" },
      "Unknown option `priorty`; did you mean `priority`? (known: `scheduler`, `priority`, `tenant`, `id`, `cost`, `tokens`, `defaultMaxTokens`, `timeoutMs`, `onRejected`)",
    ],
  ])("rejects %o", (options, message) => {
    const attempt = () => resolveAdapterOptions(options as never);
    expect(attempt).toThrow(SchedulerError);
    expect(attempt).toThrow(message);
  });

  it("rejects options that are not an object", () => {
    expect(() => resolveAdapterOptions(null as never)).toThrow(
      "Expected `options` to be an object, got `null` (null)",
    );
    expect(() => resolveAdapterOptions([] as never)).toThrow("Expected `options` to be an object");
  });
});

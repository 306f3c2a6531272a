import { describe, expect, it } from "vitest";
import { flush } from "../test/harness.js";
import { VirtualClock } from "./clock.js";
import { SchedulerError } from "./errors.js";
import { mergeUpdate, resolveOptions } from "./resolve-options.js";
import { createScheduler } from "./scheduler.js";

describe("quota options", () => {
  it("resolves the issue's example: defaults for unnamed tenants, named ones over them", () => {
    const options = resolveOptions({
      maxConcurrency: 16,
      maxTokensInFlight: 400_000,
      fairness: "tokens",
      tenantDefaults: { maxConcurrency: 6, maxQueue: 2_000, tokensPerMinute: 200_000 },
      tenants: {
        "eval-team": { weight: 1, maxConcurrency: 4, tokensPerMinute: 100_000, maxPriority: "batch" },
        "chat-app": { weight: 3 },
      },
    });
    expect(options.maxTokensInFlight).toBe(400_000);
    expect(options.fairness).toBe("tokens");
    expect(options.outputTokenWeight).toBe(2);
    expect(options.tenantDefaults).toMatchObject({ maxConcurrency: 6, maxQueue: 2_000, burstTokens: 20_000 });
    expect(options.tenantQuotas.get("eval-team")).toEqual({
      weight: 1,
      maxConcurrency: 4,
      maxQueue: 2_000,
      tokensPerMinute: 100_000,
      burstTokens: 10_000,
      maxPriority: "batch",
    });
    expect(options.tenantQuotas.get("chat-app")).toMatchObject({ weight: 3, maxConcurrency: 6 });
    expect(options.tenantWeights.get("chat-app")).toBe(3);
  });

  it("has no quota by default", () => {
    const options = resolveOptions({});
    expect(options.maxTokensInFlight).toBe(Number.POSITIVE_INFINITY);
    expect(options.fairness).toBe("requests");
    expect(options.tenantDefaults.tokensPerMinute).toBe(Number.POSITIVE_INFINITY);
  });

  it.each([
    [{ maxTokensInFlight: 0 }, "`maxTokensInFlight`"],
    [{ maxTokensInFlight: 1.5 }, "`maxTokensInFlight`"],
    [{ fairness: "bytes" }, '`fairness` to be "requests" or "tokens"'],
    [{ outputTokenWeight: -1 }, "`outputTokenWeight` to be a number from 0 to 100"],
    [{ tenantDefaults: { maxConcurrency: 0 } }, "`tenantDefaults.maxConcurrency`"],
    [{ tenantDefaults: { tokensPerMinute: -5 } }, "`tenantDefaults.tokensPerMinute`"],
    [{ tenantDefaults: { burst: 5 } }, "Unknown option `tenantDefaults.burst`"],
    [{ tenants: { a: { maxQueue: 0 } } }, "`tenants.a.maxQueue`"],
    [{ tenants: { a: { burstTokens: Number.POSITIVE_INFINITY } } }, "`tenants.a.burstTokens`"],
    [
      { tenants: { a: { maxPriority: "urgent" } } },
      "`tenants.a.maxPriority` to be one of `interactive`, `batch`",
    ],
  ])("rejects %j", (options, message) => {
    expect(() => resolveOptions(options as never)).toThrow(SchedulerError);
    expect(() => resolveOptions(options as never)).toThrow(message);
  });

  it("rejects bad per-call tokens and bad usage reports with INVALID_OPTION", async () => {
    const scheduler = createScheduler({ clock: new VirtualClock() });
    await expect(scheduler.run(() => 1, { tokens: -1 })).rejects.toMatchObject({ code: "INVALID_OPTION" });
    await expect(scheduler.run(() => 1, { tokens: 0.5 })).rejects.toThrow("`tokens`");
    const errors: unknown[] = [];
    await scheduler.run(({ reportUsage }) => {
      for (const usage of [{ inputTokens: -1 }, { inputTokens: 1, extra: 2 }, null]) {
        try {
          reportUsage(usage as never);
        } catch (error) {
          errors.push((error as SchedulerError).code);
        }
      }
    });
    expect(errors).toEqual(["INVALID_OPTION", "INVALID_OPTION", "INVALID_OPTION"]);
  });

  it("merges tenant fields in update() over the current entry", () => {
    const merged = mergeUpdate(
      { tenants: { a: { weight: 2, tokensPerMinute: 100 } }, tenantDefaults: { maxQueue: 5 } },
      { tenants: { a: { tokensPerMinute: 50 } }, tenantDefaults: { maxConcurrency: 2 }, fairness: "tokens" },
    );
    expect(merged.tenants).toEqual({ a: { weight: 2, tokensPerMinute: 50 } });
    expect(merged.tenantDefaults).toEqual({ maxQueue: 5, maxConcurrency: 2 });
    expect(merged.fairness).toBe("tokens");
  });

  it("applies a tenant cap given through update() to what already waits", async () => {
    const clock = new VirtualClock();
    const scheduler = createScheduler({ clock, maxConcurrency: 4, priorities: { only: {} } });
    const ends: Array<() => void> = [];
    let running = 0;
    const task = () =>
      new Promise<void>((resolve) => {
        running++;
        ends.push(() => {
          running--;
          resolve();
        });
      });
    scheduler.update({ tenants: { a: { maxConcurrency: 1 } } });
    for (let i = 0; i < 3; i++) void scheduler.run(task, { tenant: "a" });
    await flush();
    expect(running).toBe(1);
    scheduler.update({ tenants: { a: { maxConcurrency: 3 } } });
    await flush();
    expect(running).toBe(3);
    for (const end of ends) end();
  });
});

import { createScheduler, type SchedulerOptions } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { refuseUnenforced } from "./unsupported.js";

const configOf = (options: SchedulerOptions) => createScheduler(options).options;

describe("refuseUnenforced", () => {
  it.each([
    [{ fairness: "tokens" as const }, "`fairness`"],
    [{ maxTokensInFlight: 1_000 }, "`maxTokensInFlight`"],
    [{ tenantDefaults: { maxConcurrency: 2 } }, "`tenantDefaults.maxConcurrency`"],
    [{ tenants: { a: { tokensPerMinute: 5_000 } } }, "`tenants.a.tokensPerMinute`"],
    [{ tenants: { a: { weight: 2, maxQueue: 10 } } }, "`tenants.a.maxQueue`"],
  ])("refuses %j with INVALID_OPTION rather than ignore it", (options, field) => {
    expect(() => refuseUnenforced(configOf(options))).toThrow(field);
    expect(() => refuseUnenforced(configOf(options))).toThrow("not enforced across instances yet");
  });

  it("accepts weights and maxPriority, which work with every store", () => {
    const config = configOf({ tenants: { a: { weight: 3, maxPriority: "batch" } }, fairness: "requests" });
    expect(() => refuseUnenforced(config)).not.toThrow();
  });
});

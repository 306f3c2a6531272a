import { createScheduler } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { countsTokens } from "./token-accounting.js";

describe("countsTokens", () => {
  it("is false for a scheduler without token options", () => {
    expect(countsTokens(createScheduler())).toBe(false);
    expect(countsTokens(createScheduler({ tenantDefaults: { maxConcurrency: 2 } }))).toBe(false);
  });

  it("is true for token fairness, a token budget, or a bucket for the defaults or one tenant", () => {
    expect(countsTokens(createScheduler({ fairness: "tokens" }))).toBe(true);
    expect(countsTokens(createScheduler({ maxTokensInFlight: 10_000 }))).toBe(true);
    expect(countsTokens(createScheduler({ tenantDefaults: { tokensPerMinute: 60_000 } }))).toBe(true);
    expect(countsTokens(createScheduler({ tenants: { a: { tokensPerMinute: 60_000 } } }))).toBe(true);
  });

  it("follows update()", async () => {
    const scheduler = createScheduler();
    expect(countsTokens(scheduler)).toBe(false);
    await scheduler.update({ fairness: "tokens" });
    expect(countsTokens(scheduler)).toBe(true);
    await scheduler.update({ fairness: "requests" });
    expect(countsTokens(scheduler)).toBe(false);
    await scheduler.update({ tenants: { b: { tokensPerMinute: 1_000 } } });
    expect(countsTokens(scheduler)).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { ScenarioError } from "./scenario-error.js";
import { resolveScenario } from "./scenario-resolve.js";
import { simulate } from "./simulate.js";

const quotas = {
  durationMs: 10_000,
  chat: { ratePerSec: 0 },
  scheduler: {
    fairness: "tokens",
    maxTokensInFlight: "Infinity",
    tenantDefaults: { maxConcurrency: 2, tokensPerMinute: "Infinity" },
    tenants: { etl: { tokensPerMinute: 60_000, burstTokens: 20_000, maxQueue: "Infinity" } },
  },
  batch: {
    retries: 0,
    tenants: [
      { name: "etl", items: 10, promptTokens: 8_000, maxTokens: 100 },
      { name: "crawler", items: 10, promptTokens: 200, maxTokens: 100 },
    ],
  },
};

describe("scenario quotas and token sizes", () => {
  it("passes tenant quotas, the token budget and fairness to the scheduler, with Infinity as a string", () => {
    const scenario = resolveScenario(quotas);
    expect(scenario.scheduler).toMatchObject({
      fairness: "tokens",
      maxTokensInFlight: Number.POSITIVE_INFINITY,
      tenantDefaults: { maxConcurrency: 2, tokensPerMinute: Number.POSITIVE_INFINITY },
      tenants: { etl: { tokensPerMinute: 60_000, maxQueue: Number.POSITIVE_INFINITY } },
    });
  });

  it("names a bad quota field under scheduler.", () => {
    const bad = { ...quotas, scheduler: { tenants: { etl: { tokensPerMinut: 5 } } } };
    expect(() => resolveScenario(bad)).toThrow(ScenarioError);
    expect(() => resolveScenario(bad)).toThrow("scheduler.tenants.etl.tokensPerMinut");
  });

  it("charges each request its prompt plus max_tokens: a tenant's bucket refuses what it cannot cover", async () => {
    const result = await simulate(resolveScenario(quotas), { gateway: "scheduler" });
    const byTenant = Object.fromEntries(result.tenants.map((t) => [t.tenant, t]));
    // etl's bucket holds 20,000 tokens: two 8,100-token requests, and the rest are refused (no retries)
    // within the run, as the refill of 1,000 a second admits one more about every 8 s.
    expect(byTenant.etl!.answered).toBeGreaterThanOrEqual(2);
    expect(byTenant.etl!.answered).toBeLessThan(10);
    expect(byTenant.crawler!.answered).toBe(10);
  });
});

import { describe, expect, it } from "vitest";
import { resolveScenario } from "./scenario-resolve.js";
import { generateWorkload } from "./workload.js";

const scenario = resolveScenario({
  durationMs: 600_000,
  seed: 7,
  chat: { ratePerSec: 2, promptTokens: { min: 10, max: 20 }, maxTokens: 5 },
  batch: {
    tenants: [
      { name: "a", items: 100, startMs: 1_000 },
      { name: "b", items: 10, startMs: 2_000, spreadMs: 1_000, maxTokens: { min: 1, max: 3 } },
    ],
  },
});

describe("generateWorkload", () => {
  it("draws the same workload from the same seed, and another from another seed", () => {
    expect(generateWorkload(scenario)).toEqual(generateWorkload(scenario));
    const other = generateWorkload({ ...scenario, seed: 8 });
    expect(other.requests.slice(0, 5)).not.toEqual(generateWorkload(scenario).requests.slice(0, 5));
  });

  it("sends chat as a Poisson process at the given rate, with sizes in range", () => {
    const chats = generateWorkload(scenario).requests.filter((r) => r.kind === "chat");
    // 1,200 expected; a Poisson count has a standard deviation of about 35.
    expect(chats.length).toBeGreaterThan(1_050);
    expect(chats.length).toBeLessThan(1_350);
    expect(chats.every((r) => r.at >= 0 && r.at < 600_000)).toBe(true);
    expect(chats.every((r) => r.promptTokens >= 10 && r.promptTokens <= 20 && r.maxTokens === 5)).toBe(true);
    expect(new Set(chats.map((r) => r.promptTokens)).size).toBe(11);
    expect(chats[0]).toMatchObject({ key: "chat-0", priority: "interactive", tenant: "chat" });
  });

  it("floods or spreads each tenant's batch items from its start", () => {
    const batch = generateWorkload(scenario).requests.filter((r) => r.kind === "batch");
    const a = batch.filter((r) => r.tenant === "a");
    const b = batch.filter((r) => r.tenant === "b");
    expect(a).toHaveLength(100);
    expect(a.every((r) => r.at === 1_000)).toBe(true);
    expect(b.map((r) => r.at)).toEqual([2000, 2100, 2200, 2300, 2400, 2500, 2600, 2700, 2800, 2900]);
    expect(b.every((r) => r.maxTokens >= 1 && r.maxTokens <= 3 && r.priority === "batch")).toBe(true);
  });

  it("orders every request by its send time", () => {
    const { requests, chatCount, batchCount } = generateWorkload(scenario);
    expect(requests).toHaveLength(chatCount + batchCount);
    expect(requests.every((r, i) => i === 0 || requests[i - 1]!.at <= r.at)).toBe(true);
  });
});

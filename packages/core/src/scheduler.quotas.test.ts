import { describe, expect, it } from "vitest";
import { flush, Harness } from "../test/harness.js";
import { errorResponseFor } from "./http.js";
import type { SchedulerOptions } from "./options.js";

const lanes = {
  interactive: { weight: 5, queueTimeoutMs: 1e9, maxQueue: 100_000 },
  batch: { weight: 1, queueTimeoutMs: 1e9, maxQueue: 100_000 },
};

function harness(options: SchedulerOptions): Harness {
  return new Harness({ priorities: lanes, ...options });
}

const running = (h: Harness, prefix: string): number =>
  h.startOrder.filter((name) => name.startsWith(prefix) && !h.outcomes.has(name)).length;

describe("tenant maxConcurrency", () => {
  it("caps a lone tenant although slots are free", async () => {
    const h = harness({ maxConcurrency: 8, tenantDefaults: { maxConcurrency: 2 } });
    for (let i = 0; i < 6; i++) h.submit(`a-${i}`, { tenant: "a" });
    await flush();
    expect(running(h, "a-")).toBe(2);
    await h.finish("a-0");
    expect(running(h, "a-")).toBe(2);
    expect(h.startOrder).toEqual(["a-0", "a-1", "a-2"]);
  });

  it("skips a capped tenant without holding up the others (work-conserving)", async () => {
    const h = harness({ maxConcurrency: 4, tenants: { a: { maxConcurrency: 1 } } });
    h.submit("blocker", { tenant: "z", priority: "batch" });
    for (let i = 0; i < 3; i++) h.submit(`blocker-${i}`, { tenant: "z", priority: "batch" });
    for (let i = 0; i < 5; i++) h.submit(`a-${i}`, { tenant: "a", priority: "batch" });
    for (let i = 0; i < 5; i++) h.submit(`b-${i}`, { tenant: "b", priority: "batch" });
    await flush();
    await h.finishInOrder(4);
    // Four slots: a holds one, b takes the other three although a's turns come up.
    expect(running(h, "a-")).toBe(1);
    expect(running(h, "b-")).toBe(3);
  });

  it("applies across priorities and comes back when the tenant drops below its cap", async () => {
    const h = harness({ maxConcurrency: 4, tenantDefaults: { maxConcurrency: 2 } });
    h.submit("a-hi", { tenant: "a", priority: "interactive" });
    h.submit("a-lo", { tenant: "a", priority: "batch" });
    h.submit("a-late", { tenant: "a", priority: "batch" });
    await flush();
    expect(h.startOrder).toEqual(["a-hi", "a-lo"]);
    await h.finish("a-hi");
    expect(h.startOrder).toEqual(["a-hi", "a-lo", "a-late"]);
  });
});

describe("tenant maxQueue", () => {
  it("refuses with TENANT_QUEUE_FULL (429) while other tenants still queue", async () => {
    const h = harness({ maxConcurrency: 1, tenantDefaults: { maxQueue: 2 } });
    h.submit("run", { tenant: "x" });
    for (let i = 0; i < 3; i++) h.submit(`a-${i}`, { tenant: "a" });
    h.submit("b-0", { tenant: "b" });
    await flush();
    expect(h.errorCode("a-2")).toBe("TENANT_QUEUE_FULL");
    expect(h.outcomes.has("b-0")).toBe(false);
    const error = h.outcomes.get("a-2")!.value;
    expect(errorResponseFor(error).status).toBe(429);
    expect(errorResponseFor(error).body.error.code).toBe("TENANT_QUEUE_FULL");
  });
});

describe("tenant tokensPerMinute", () => {
  const quota = { tenants: { a: { tokensPerMinute: 60_000, burstTokens: 10_000 } } };

  it("spends the bucket, then refuses with RATE_LIMITED and the exact refill time", async () => {
    const h = harness({ maxConcurrency: 8, ...quota });
    h.submit("a-0", { tenant: "a", tokens: 6_000 });
    h.submit("a-1", { tenant: "a", tokens: 6_000 });
    await flush();
    expect(h.startOrder).toEqual(["a-0"]);
    expect(h.errorCode("a-1")).toBe("RATE_LIMITED");
    // 4,000 left, 6,000 needed, 1,000 tokens per second: two seconds.
    const error = h.outcomes.get("a-1")!.value as { retryAfterMs: number };
    expect(error.retryAfterMs).toBe(2_000);
    expect(errorResponseFor(error).headers["retry-after"]).toBe("2");
    h.clock.advance(1_999);
    h.submit("a-2", { tenant: "a", tokens: 6_000 });
    await flush();
    expect(h.errorCode("a-2")).toBe("RATE_LIMITED");
    h.clock.advance(1);
    h.submit("a-3", { tenant: "a", tokens: 6_000 });
    await flush();
    expect(h.startOrder).toEqual(["a-0", "a-3"]);
  });

  it("counts what the tenant already has waiting", async () => {
    const h = harness({ maxConcurrency: 1, ...quota });
    h.submit("x", { tenant: "x" });
    h.submit("a-0", { tenant: "a", tokens: 6_000 });
    h.submit("a-1", { tenant: "a", tokens: 6_000 });
    await flush();
    expect(h.errorCode("a-1")).toBe("RATE_LIMITED");
    expect(h.outcomes.has("a-0")).toBe(false);
  });

  it("is corrected by reportUsage", async () => {
    const h = harness({ maxConcurrency: 8, ...quota });
    await h.scheduler.run(({ reportUsage }) => reportUsage({ inputTokens: 9_000, outputTokens: 500 }), {
      tenant: "a",
      tokens: 1_000,
    });
    h.submit("a-1", { tenant: "a", tokens: 1_000 });
    await flush();
    // 10,000 - 9,500 used = 500 left: 1,000 is refused, 500 ms short.
    expect(h.errorCode("a-1")).toBe("RATE_LIMITED");
    expect((h.outcomes.get("a-1")!.value as { retryAfterMs: number }).retryAfterMs).toBe(500);
  });

  it("lets a request larger than the whole bucket start from a full bucket only", async () => {
    const h = harness({ maxConcurrency: 8, ...quota });
    h.submit("a-big", { tenant: "a", tokens: 50_000 });
    h.submit("a-next", { tenant: "a", tokens: 1 });
    await flush();
    expect(h.startOrder).toEqual(["a-big"]);
    // 40,000 tokens of debt plus one: 40 s.
    expect((h.outcomes.get("a-next")!.value as { retryAfterMs: number }).retryAfterMs).toBe(40_001);
  });

  it("changes live through update()", async () => {
    const h = harness({ maxConcurrency: 8, ...quota });
    h.scheduler.update({ tenants: { a: { burstTokens: 1_000 } } });
    await flush();
    h.submit("a-0", { tenant: "a", tokens: 2_000 });
    h.submit("b-0", { tenant: "b", tokens: 2_000 });
    await flush();
    expect(h.startOrder).toEqual(["a-0", "b-0"]); // oversize from a full bucket; b has no quota
    h.submit("a-1", { tenant: "a", tokens: 1 });
    await flush();
    expect(h.errorCode("a-1")).toBe("RATE_LIMITED");
  });
});

describe("tenant maxPriority", () => {
  it("lowers a more urgent request to it and never raises one", async () => {
    const h = harness({ maxConcurrency: 8, tenants: { evals: { maxPriority: "batch" } } });
    const seen: string[] = [];
    await h.scheduler.run((context) => seen.push(context.priority), {
      tenant: "evals",
      priority: "interactive",
    });
    await h.scheduler.run((context) => seen.push(context.priority), { tenant: "evals", priority: "batch" });
    await h.scheduler.run((context) => seen.push(context.priority), { tenant: "chat", priority: "batch" });
    expect(seen).toEqual(["batch", "batch", "batch"]);
  });
});

describe("maxTokensInFlight", () => {
  it("needs both the slot and the token budget to start", async () => {
    const h = harness({ maxConcurrency: 8, maxTokensInFlight: 1_000 });
    h.submit("t-0", { tokens: 600 });
    h.submit("t-1", { tokens: 600 });
    h.submit("t-2", { tokens: 300 });
    await flush();
    expect(h.startOrder).toEqual(["t-0"]); // t-1 waits first in line
    await h.finish("t-0");
    expect(h.startOrder).toEqual(["t-0", "t-1", "t-2"]);
  });

  it("runs a single request bigger than the whole budget alone", async () => {
    const h = harness({ maxConcurrency: 8, maxTokensInFlight: 1_000 });
    h.submit("small", { tokens: 10 });
    h.submit("huge", { tokens: 5_000 });
    h.submit("after", { tokens: 10 });
    await flush();
    expect(h.startOrder).toEqual(["small"]);
    await h.finish("small");
    expect(h.startOrder).toEqual(["small", "huge"]);
    await h.finish("huge");
    expect(h.startOrder).toEqual(["small", "huge", "after"]);
  });
});

describe('fairness: "tokens"', () => {
  async function served(fairness: "tokens" | "requests"): Promise<Map<string, number>> {
    const h = harness({ maxConcurrency: 1, fairness });
    const tokens = new Map<string, number>([
      ["big", 0],
      ["small", 0],
    ]);
    h.scheduler.on("started", (event) =>
      tokens.set(event.tenant, tokens.get(event.tenant)! + (event.tenant === "big" ? 8_000 : 200)),
    );
    for (let i = 0; i < 200; i++) h.submit(`big-${i}`, { tenant: "big", tokens: 8_000 });
    for (let i = 0; i < 200; i++) h.submit(`small-${i}`, { tenant: "small", tokens: 200 });
    await flush();
    await h.finishInOrder(150);
    return tokens;
  }

  it("shares tokens served, where turns by requests do not", async () => {
    const byTokens = await served("tokens");
    const ratio = byTokens.get("big")! / byTokens.get("small")!;
    expect(ratio).toBeGreaterThan(0.9);
    expect(ratio).toBeLessThan(1.1 + 8_000 / byTokens.get("small")!);
    const byRequests = await served("requests");
    expect(byRequests.get("big")! / byRequests.get("small")!).toBeGreaterThan(20);
  });

  it("lifts a returning tenant to the least-served active one, so idle time is not banked", async () => {
    const h = harness({ maxConcurrency: 1, fairness: "tokens" });
    h.submit("x", { tenant: "x", tokens: 100 });
    for (let i = 0; i < 40; i++) h.submit(`a-${i}`, { tenant: "a", tokens: 100 });
    await flush();
    await h.finishInOrder(21); // a has 2,000 tokens served
    for (let i = 0; i < 40; i++) h.submit(`b-${i}`, { tenant: "b", tokens: 100 });
    await flush();
    await h.finishInOrder(10);
    const next = h.startOrder.slice(-10).map((name) => name.split("-")[0]);
    // b is not owed 20 starts in a row: the two alternate.
    expect(next.filter((tenant) => tenant === "b").length).toBeLessThanOrEqual(6);
    expect(next.filter((tenant) => tenant === "a").length).toBeGreaterThanOrEqual(4);
  });

  it("counts reported usage, output twice by default", async () => {
    const h = harness({ maxConcurrency: 8, fairness: "tokens" });
    await h.scheduler.run(({ reportUsage }) => reportUsage({ inputTokens: 100, outputTokens: 50 }), {
      tenant: "a",
      tokens: 10,
    });
    h.submit("hold", { tenant: "a" });
    await flush();
    const [a] = h.scheduler.metrics().tenants;
    expect(a).toMatchObject({ tenant: "a", tokensServed: 200, tokensInFlight: 0 });
  });
});

describe("quota metrics", () => {
  it("shows bucket level, tokens in flight and throttled counts", async () => {
    const h = harness({ maxConcurrency: 8, tenantDefaults: { tokensPerMinute: 60_000, maxQueue: 5 } });
    h.submit("a-0", { tenant: "a", tokens: 4_000 });
    h.submit("a-1", { tenant: "a", tokens: 4_000 });
    await flush();
    expect(h.scheduler.metrics().tenants).toEqual([
      {
        tenant: "a",
        priority: "interactive",
        running: 1,
        queued: 0,
        tokensServed: 4_000,
        tokensInFlight: 4_000,
        bucket: 2_000,
        throttled: 1,
      },
    ]);
  });
});

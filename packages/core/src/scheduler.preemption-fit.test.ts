import { describe, expect, it } from "vitest";
import { flush } from "../test/harness.js";
import { preemptionHarness as harness, polite } from "../test/preemption-harness.js";

describe("preemption only where the arrival can take the slot", () => {
  it("stops a task of the arrival's own tenant when that tenant is at its maxConcurrency", async () => {
    const { h, preempted } = harness({ tenants: { a: { maxConcurrency: 1 } } });
    const a1 = polite(h, "a1", { priority: "batch", tenant: "a" });
    h.clock.advance(100);
    const b1 = polite(h, "b1", { priority: "batch", tenant: "b" }); // ran the shortest
    await flush();
    h.clock.advance(100);
    polite(h, "chat", { priority: "interactive", tenant: "a" });
    await flush();
    // b1's slot would not let tenant a start (it holds its one slot with a1): a1 is the victim.
    expect(preempted.map((event) => event.id)).toEqual(["a1"]);
    expect(h.gates.get("b1")!.signal!.aborted).toBe(false);
    expect(h.startOrder).toEqual(["a1", "b1", "chat"]);
    await h.finish("chat");
    expect(h.startOrder).toEqual(["a1", "b1", "chat", "a1"]);
    await h.finish("a1");
    await h.finish("b1");
    await expect(a1).resolves.toBe("a1");
    await expect(b1).resolves.toBe("b1");
  });

  it("stops nobody when no victim's slot would let the arrival's tenant start", async () => {
    const { h, preempted } = harness({ tenants: { a: { maxConcurrency: 1 } } });
    polite(h, "a-chat", { priority: "interactive", tenant: "a" });
    polite(h, "b1", { priority: "batch", tenant: "b" });
    await flush();
    polite(h, "a-chat2", { priority: "interactive", tenant: "a" });
    await flush();
    expect(preempted.map((event) => event.id)).toEqual([]);
    expect(h.gates.get("b1")!.signal!.aborted).toBe(false);
    await h.finish("a-chat");
    expect(h.startOrder).toEqual(["a-chat", "b1", "a-chat2"]);
    expect(h.scheduler.metrics().priorities.batch).toMatchObject({ preempted: 0, preemptedRunMs: 0 });
  });

  it("stops the task whose tokens make room under maxTokensInFlight, not the one that ran the shortest", async () => {
    const { h, preempted } = harness({ maxConcurrency: 3, maxTokensInFlight: 1_000 });
    polite(h, "big", { priority: "batch", tokens: 900 });
    h.clock.advance(100);
    polite(h, "small", { priority: "batch", tokens: 100 }); // ran the shortest, frees too few tokens
    await flush();
    h.clock.advance(100);
    polite(h, "chat", { priority: "interactive", tokens: 500 });
    await flush();
    expect(preempted.map((event) => event.id)).toEqual(["big"]);
    expect(h.startOrder).toEqual(["big", "small", "chat"]);
  });

  it("stops nobody when the token budget would stay spent whichever task stopped", async () => {
    const { h, preempted } = harness({ maxConcurrency: 3, maxTokensInFlight: 1_000 });
    polite(h, "c1", { priority: "batch", tokens: 500 });
    polite(h, "c2", { priority: "batch", tokens: 500 });
    await flush();
    polite(h, "chat", { priority: "interactive", tokens: 800 });
    await flush();
    expect(preempted.map((event) => event.id)).toEqual([]);
    expect(h.startOrder).toEqual(["c1", "c2"]);
  });
});

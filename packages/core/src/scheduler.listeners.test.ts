import { describe, expect, it } from "vitest";
import { flush, Harness } from "../test/harness.js";

describe("listeners that throw", () => {
  it("never recurse when the error listener throws: runs settle, slots are freed, onIdle resolves", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: { batch: {} } });
    let errorCalls = 0;
    h.scheduler.on("error", () => {
      errorCalls++;
      throw new Error("error listener broke");
    });
    for (const name of ["queued", "started", "completed", "failed", "idle"] as const) {
      h.scheduler.on(name, () => {
        throw new Error(`${name} listener broke`);
      });
    }
    const first = h.submit("a");
    const second = h.submit("b");
    await flush();
    await h.finish("a");
    h.gates.get("b")!.fail(new Error("boom"));
    await flush();
    await expect(first).resolves.toBe("a");
    await expect(second).rejects.toThrow("boom");
    await expect(h.scheduler.onIdle()).resolves.toBeUndefined();
    expect(h.scheduler.metrics().running).toBe(0);
    // Each throw of another listener reaches the error listener once; its own throws are dropped.
    expect(errorCalls).toBeGreaterThanOrEqual(5);
    expect(errorCalls).toBeLessThan(20);
  });

  it("reports a throwing listener to the error listener with the error it threw", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: { batch: {} } });
    const seen: unknown[] = [];
    h.scheduler.on("error", ({ error }) => seen.push(error));
    const thrown = new Error("started listener broke");
    h.scheduler.on("started", () => {
      throw thrown;
    });
    const done = h.submit("a");
    await flush();
    await h.finish("a");
    await expect(done).resolves.toBe("a");
    expect(seen).toEqual([thrown]);
  });
});

import { describe, expect, it } from "vitest";
import { LlmScheduler } from "./compat.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("LlmScheduler", () => {
  it("keeps the write-up's API: submit, getMetrics and its events", async () => {
    const scheduler = new LlmScheduler({ maxConcurrency: 2 });
    const events: string[] = [];
    for (const name of ["queued", "started", "completed", "failed", "drained"] as const) {
      scheduler.on(name, () => events.push(name));
    }
    const results = await Promise.allSettled([
      scheduler.submit("a", "interactive", async () => "A"),
      scheduler.submit("b", "batch", async () => {
        throw new Error("B");
      }),
      scheduler.submit("c", "batch", async () => "C"),
    ]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(events).toContain("queued");
    expect(events).toContain("failed");
    expect(events.at(-1)).toBe("drained");
    expect(scheduler.getMetrics()).toMatchObject({
      running: 0,
      interactiveWaiting: 0,
      batchWaiting: 0,
      completed: 2,
      failed: 1,
    });
    await scheduler.close();
  });

  it("serves interactive tasks promptly behind a long batch backlog instead of timing them out", async () => {
    const scheduler = new LlmScheduler({ maxConcurrency: 4, interactiveQueueTimeoutMs: 5_000 });
    const starts: string[] = [];
    const work = (name: string, ms: number) => () => {
      starts.push(name);
      return sleep(ms);
    };
    const batch = Array.from({ length: 400 }, (_, i) =>
      scheduler.submit(`batch-${i}`, "batch", work(`batch-${i}`, 5)).catch(() => "failed"),
    );
    await sleep(20);
    expect(scheduler.getMetrics().batchWaiting).toBeGreaterThan(300);
    const before = starts.length;
    const interactive = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        scheduler.submit(`chat-${i}`, "interactive", work(`chat-${i}`, 1)),
      ),
    );
    expect(interactive.every((result) => result.status === "fulfilled")).toBe(true);
    // Scored by queue length, all ~390 waiting batch items would start first. Weighted 5:1 with a
    // reserved slot, the 20 chats need at most a handful of batch starts beside them.
    const during = starts.slice(before, starts.indexOf("chat-19") + 1);
    expect(during.filter((name) => name.startsWith("batch")).length).toBeLessThanOrEqual(12);
    expect(scheduler.getMetrics().timedOut).toBe(0);
    await scheduler.close();
    await Promise.all(batch);
  });

  it("validates its options", () => {
    expect(() => new LlmScheduler({ maxConcurrency: 0 })).toThrow(
      "Expected `maxConcurrency` to be a positive integer",
    );
  });
});

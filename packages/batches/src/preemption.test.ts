import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { advance, items } from "../test/helpers.js";
import { createBatches } from "./index.js";
import type { ExecuteContext, ExecuteResult, ItemResult } from "./types.js";

describe("batches under preemption", () => {
  it("re-queues a preempted item transparently: it runs again, completes once, with one attempt", async () => {
    const clock = new VirtualClock(1_000_000);
    const scheduler = createScheduler({
      clock,
      maxConcurrency: 2,
      priorities: {
        interactive: { preempts: ["batch"] },
        batch: { queueTimeoutMs: 3_600_000, preemptible: { maxPerTask: 2 } },
      },
    });
    const calls: string[] = [];
    // Each call takes 1 s of virtual time, and stops at once when its signal fires.
    const execute = (context: ExecuteContext): Promise<ExecuteResult> =>
      new Promise((resolve, reject) => {
        calls.push(context.item.customId);
        const timer = clock.setTimer(
          () => resolve({ status: 200, body: { echo: context.item.customId } }),
          1_000,
        );
        context.signal.addEventListener("abort", () => {
          clock.clearTimer(timer);
          reject(context.signal.reason);
        });
      });
    const batches = createBatches({ scheduler, execute, random: () => 0.5 });
    try {
      const preempted: string[] = [];
      scheduler.on("preempted", (event) => preempted.push(event.id));
      const batch = await batches.create({ items: items(4) });
      await advance(clock, 500);
      const chat = scheduler.run(() => "answer", { priority: "interactive" });
      await advance(clock, 50);
      await expect(chat).resolves.toBe("answer");
      expect(preempted).toHaveLength(1);
      await advance(clock, 5_000);
      const after = await batches.get(batch.id);
      expect(after?.status).toBe("completed");
      expect(after?.requestCounts).toEqual({ total: 4, completed: 4, failed: 0 });
      const results: ItemResult[] = [];
      for await (const result of batches.results(batch.id)) results.push(result);
      for (const result of results) {
        expect(result).toMatchObject({ error: null, response: { statusCode: 200 } });
        expect(result.attempts).toHaveLength(1);
      }
      // The preempted item was called twice (its first run thrown away), every other item once.
      const victim = preempted[0]!.slice(preempted[0]!.lastIndexOf(":") + 1);
      expect(calls.filter((id) => id === `q-${victim}`)).toHaveLength(2);
      expect(calls).toHaveLength(5);
    } finally {
      await batches.close();
      await scheduler.close();
    }
  });
});

import { createScheduler } from "@llm-scheduler/core";
import { LlmScheduler } from "@llm-scheduler/core/compat";
import { describe, expect, it } from "vitest";
import { getBatchProgress, submitBatch } from "./compat.js";

describe("the write-up's submitBatch and getBatchProgress", () => {
  it("runs every item at priority batch and counts done and failed", async () => {
    const scheduler = createScheduler({ maxConcurrency: 2 });
    const priorities: string[] = [];
    scheduler.on("started", (event) => priorities.push(event.priority));
    const work = async (item: unknown) => {
      if (item === 3) throw new Error("boom");
      return item;
    };
    const submitted = submitBatch({ batchId: "b-1", items: [1, 2, 3, 4] }, scheduler, work);
    expect(getBatchProgress("b-1")).toEqual({ done: 0, total: 4, failed: 0 });
    await submitted;
    expect(getBatchProgress("b-1")).toEqual({ done: 3, total: 4, failed: 1 });
    expect(priorities).toEqual(["batch", "batch", "batch", "batch"]);
    expect(getBatchProgress("unknown")).toEqual({ done: 0, total: 0, failed: 0 });
    await scheduler.close();
  });

  it("works with the write-up's LlmScheduler and items that are functions", async () => {
    const scheduler = new LlmScheduler({ maxConcurrency: 2 });
    await submitBatch({ batchId: "b-2", items: [async () => 1, async () => 2] }, scheduler);
    expect(getBatchProgress("b-2")).toEqual({ done: 2, total: 2, failed: 0 });
    await submitBatch({ batchId: "b-3", items: ["not a function"] }, scheduler);
    expect(getBatchProgress("b-3")).toEqual({ done: 0, total: 1, failed: 1 });
  });
});

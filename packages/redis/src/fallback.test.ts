import { createScheduler } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { localOptions } from "./fallback.js";

describe("localOptions", () => {
  const options = createScheduler({
    maxConcurrency: 32,
    maxQueue: 50_000,
    priorities: {
      interactive: { reserved: 4, maxQueue: 500 },
      batch: { maxConcurrency: 24 },
    },
  }).options;

  it("divides every limit by the expected number of instances", () => {
    const local = localOptions(options, 4, 1_000);
    expect(local.maxConcurrency).toBe(8);
    expect(local.priorities.map((p) => [p.name, p.maxConcurrency, p.reserved])).toEqual([
      ["interactive", 8, 1],
      ["batch", 6, 0],
    ]);
    expect(local.priorityByName.get("batch")!.maxConcurrency).toBe(6);
  });

  it("bounds every local queue", () => {
    const local = localOptions(options, 4, 1_000);
    expect(local.maxQueue).toBe(1_000);
    expect(local.priorities.map((p) => p.maxQueue)).toEqual([500, 1_000]);
  });

  it("keeps at least one slot and reserves within the local limit", () => {
    const local = localOptions(options, 64, 10);
    expect(local.maxConcurrency).toBe(1);
    expect(local.priorities.every((p) => p.maxConcurrency === 1 && p.reserved === 0)).toBe(true);
  });
});

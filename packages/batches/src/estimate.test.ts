import { describe, expect, it } from "vitest";
import { estimatedCompletionAt } from "./estimate.js";
import { batchObject } from "./http/format.js";
import type { Batch } from "./types.js";

const T0 = 1_700_000_000_000;

function batch(fields: Partial<Batch>): Batch {
  return {
    id: "batch_x",
    tenant: "t",
    status: "in_progress",
    priority: "batch",
    endpoint: null,
    inputFileId: null,
    outputFileId: null,
    errorFileId: null,
    completionWindowMs: 86_400_000,
    retry: { maxAttempts: 1, baseMs: 1, maxMs: 1 },
    requestCounts: { total: 100, completed: 0, failed: 0 },
    metadata: null,
    errors: null,
    createdAt: T0,
    expiresAt: T0 + 86_400_000,
    inProgressAt: T0,
    finalizingAt: null,
    completedAt: null,
    failedAt: null,
    expiredAt: null,
    cancellingAt: null,
    cancelledAt: null,
    runningSince: null,
    ...fields,
  };
}

describe("estimatedCompletionAt", () => {
  it("extends the rate since the round's first claim over the items left", () => {
    const running = batch({
      runningSince: { at: T0 + 1_000, done: 0 },
      requestCounts: { total: 100, completed: 20, failed: 5 },
    });
    // 25 ended in 10 s: 75 left take 30 s more
    expect(estimatedCompletionAt(running, T0 + 11_000)).toBe(T0 + 41_000);
  });

  it("is never later than the end of the window", () => {
    const slow = batch({
      runningSince: { at: T0, done: 0 },
      requestCounts: { total: 100, completed: 1, failed: 0 },
      expiresAt: T0 + 60_000,
    });
    expect(estimatedCompletionAt(slow, T0 + 10_000)).toBe(T0 + 60_000); // the rate says T0 + 1,000 s
  });

  it("counts only this round's items after a retryFailed", () => {
    const retried = batch({
      runningSince: { at: T0, done: 90 },
      requestCounts: { total: 100, completed: 95, failed: 0 },
    });
    expect(estimatedCompletionAt(retried, T0 + 5_000)).toBe(T0 + 10_000); // 5 in 5 s, 5 left
  });

  it("is null with no rate yet, and for a batch not in progress", () => {
    expect(estimatedCompletionAt(batch({}), T0 + 1)).toBeNull();
    expect(estimatedCompletionAt(batch({ runningSince: { at: T0, done: 0 } }), T0 + 1)).toBeNull();
    const ended = batch({
      status: "completed",
      runningSince: { at: T0, done: 0 },
      requestCounts: { total: 1, completed: 1, failed: 0 },
    });
    expect(estimatedCompletionAt(ended, T0 + 1)).toBeNull();
  });

  it("shows in the HTTP batch object as estimated_completion_at, in unix seconds", () => {
    const view = { ...batch({}), estimatedCompletionAt: T0 + 41_500 };
    expect(batchObject(view).estimated_completion_at).toBe((T0 + 41_000) / 1000);
    expect(batchObject(batch({})).estimated_completion_at).toBeNull();
  });
});

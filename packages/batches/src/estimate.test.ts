import { describe, expect, it } from "vitest";
import { estimatedCompletionAt } from "./estimate.js";
import { batchObject } from "./http/format.js";
import { queueEstimate } from "./queue-estimate.js";
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

describe("queueEstimate", () => {
  const order = { key: "deadline", tieMs: 60_000 } as const;
  const now = T0 + 100_000;
  // 100 items in 100 s since its first claim: one item a second, 50 left
  const head = batch({
    id: "batch_head",
    expiresAt: T0 + 3_600_000,
    runningSince: { at: T0, done: 0 },
    requestCounts: { total: 150, completed: 100, failed: 0 },
  });

  it("adds the items of the batches ahead in the claim order to its own, at the fastest rate of its priority", () => {
    // passed by the head: 30 of 130 items ended in 100 s, a rate that would say 333 s for the 100 left
    const late = batch({
      runningSince: { at: T0, done: 0 },
      requestCounts: { total: 130, completed: 30, failed: 0 },
    });
    expect(queueEstimate(late, [head, late], order, now)).toBe(now + 150_000); // 50 + 100 items at 1/s
    expect(queueEstimate(head, [head, late], order, now)).toBe(now + 50_000);
  });

  it("shares its group by turns, takes the rate of a batch that completed recently, and ignores other priorities", () => {
    const tied = batch({
      id: "batch_tied",
      expiresAt: head.expiresAt + 30_000,
      requestCounts: { total: 20, completed: 0, failed: 0 },
    });
    const done = batch({
      id: "batch_done",
      status: "completed",
      completedAt: T0 + 50_000,
      runningSince: { at: T0, done: 0 },
      requestCounts: { total: 100, completed: 100, failed: 0 }, // 2 items a second
    });
    const other = batch({
      id: "batch_other",
      priority: "bulk",
      expiresAt: T0,
      requestCounts: { total: 900, completed: 0, failed: 0 },
    });
    // in the head's group: its 50 and up to 50 of the tied batch's 20, at 2 items a second
    expect(queueEstimate(head, [tied, done, other], order, now)).toBe(now + 35_000);
  });

  it("is null without a steady rate of its priority, and never later than the window's end", () => {
    const young = batch({
      runningSince: { at: T0, done: 0 },
      requestCounts: { total: 100, completed: 5, failed: 0 },
    });
    expect(queueEstimate(young, [], order, now)).toBeNull();
    const tight = { ...head, expiresAt: now + 10_000 };
    expect(queueEstimate(tight, [], order, now)).toBe(now + 10_000);
    expect(queueEstimate({ ...head, status: "finalizing" }, [], order, now)).toBeNull();
  });
});

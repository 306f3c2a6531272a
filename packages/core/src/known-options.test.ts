import { describe, expect, it } from "vitest";
import { KnownTaskOptions } from "./known-options.js";
import { createScheduler } from "./scheduler.js";

const known = (priority?: string, tenant?: string, cost?: number, tokens?: number, timeoutMs?: number) =>
  new KnownTaskOptions({ priority, tenant, cost, tokens, timeoutMs });

describe("KnownTaskOptions (an adapter's per-request options)", () => {
  it("grants and releases like the same options as a plain object", () => {
    const scheduler = createScheduler({ maxConcurrency: 4 });
    const permit = scheduler.tryAcquire(known("batch", "alice", 2, 10))!;
    expect(permit).toMatchObject({ priority: "batch", tenant: "alice", waitMs: 0 });
    expect(scheduler.metrics().running).toBe(2);
    permit.release();
    expect(scheduler.metrics().running).toBe(0);
  });

  it("still checks every value: a bad cost, priority or timeout is INVALID_OPTION or INVALID_PRIORITY", () => {
    const scheduler = createScheduler({ maxConcurrency: 4 });
    expect(() => scheduler.tryAcquire(known(undefined, undefined, 0))).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringContaining("cost") }),
    );
    expect(() => scheduler.tryAcquire(known(undefined, "", undefined))).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringContaining("tenant") }),
    );
    expect(() => scheduler.tryAcquire(known(undefined, undefined, undefined, undefined, -1))).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringContaining("timeoutMs") }),
    );
    expect(() => scheduler.tryAcquire(known("urgent"))).toThrow(
      expect.objectContaining({ code: "INVALID_PRIORITY" }),
    );
    expect(scheduler.metrics().running).toBe(0);
  });

  it("a plain object, or a spread copy of known options, still has its keys checked", () => {
    const scheduler = createScheduler({ maxConcurrency: 4 });
    const copy = { ...known("batch"), tenat: "alice" };
    expect(() => scheduler.tryAcquire(copy)).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringContaining("`tenat`") }),
    );
  });

  it("takes each field by its name, and only the named fields", () => {
    const signal = new AbortController().signal;
    const fields = { priority: "batch", tenant: "alice", id: "req-1", cost: 2, tokens: 30, timeoutMs: 500 };
    const options = new KnownTaskOptions({ ...fields, claimedRetry: true, signal, tenat: "typo" } as never);
    expect({ ...options }).toEqual({ ...fields, claimedRetry: true, signal });
    expect(new KnownTaskOptions({}).claimedRetry).toBe(false);
    expect({ ...new KnownTaskOptions(fields).withSignal(signal) }).toEqual({
      ...fields,
      claimedRetry: false,
      signal,
    });
  });

  it("withSignal queues with the caller's signal: aborting it drops the waiting request", async () => {
    const scheduler = createScheduler({ maxConcurrency: 1 });
    const held = scheduler.tryAcquire(known())!;
    const controller = new AbortController();
    const waiting = scheduler.acquire(known("batch").withSignal(controller.signal));
    expect(scheduler.metrics().queued).toBe(1);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: "ABORTED" });
    held.release();
    expect(scheduler.metrics()).toMatchObject({ running: 0, queued: 0 });
  });
});

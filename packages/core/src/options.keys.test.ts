import { describe, expect, it } from "vitest";
import type { TaskOptions } from "./admission.js";
import { createScheduler } from "./scheduler.js";

const invalid = (message: string) => expect.objectContaining({ code: "INVALID_OPTION", message });

describe("unknown option keys", () => {
  it.each([
    [
      { maxConcurency: 4 },
      "Unknown option `maxConcurency`; did you mean `maxConcurrency`? (known: `maxConcurrency`,",
    ],
    [{ maxQueueSize: 10 }, "Unknown option `maxQueueSize`; did you mean `maxQueue`?"],
    [
      { priorities: { batch: { queueTimeout: 5 } } },
      "Unknown option `priorities.batch.queueTimeout`; did you mean `queueTimeoutMs`?",
    ],
    [
      { tenants: { alice: { maxConcurency: 2 } } },
      "Unknown option `tenants.alice.maxConcurency`; did you mean `maxConcurrency`? (known: `weight`, `maxConcurrency`, `maxQueue`, `tokensPerMinute`, `burstTokens`, `maxPriority`)",
    ],
  ])("createScheduler(%j) throws naming the key and the nearest known one", (options, message) => {
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
    expect(() => createScheduler(options as any)).toThrow(invalid(expect.stringContaining(message)));
  });

  it.each([
    [{ maxConcurency: 4 }, "Unknown option `maxConcurency`; did you mean `maxConcurrency`?"],
    [{ retryWindowMs: 5 }, "Unknown option `retryWindowMs`"],
    [{ priorities: { batch: { queueTimeout: 5 } } }, "Unknown option `priorities.batch.queueTimeout`"],
    [{ tenants: { bob: { wieght: 2 } } }, "Unknown option `tenants.bob.wieght`; did you mean `weight`?"],
  ])("update(%j) throws and changes nothing", (update, message) => {
    const scheduler = createScheduler({ maxConcurrency: 4 });
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
    expect(() => scheduler.update(update as any)).toThrow(invalid(expect.stringContaining(message)));
    expect(scheduler.options.maxConcurrency).toBe(4);
    expect(scheduler.options.priorities.map((p) => p.name)).toEqual(["interactive", "batch"]);
  });

  it("rejects an unknown per-call key with INVALID_OPTION and keeps nothing on the books", async () => {
    const scheduler = createScheduler();
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
    const run = scheduler.run(() => 1, { priorty: "batch" } as any);
    await expect(run).rejects.toThrow(invalid(expect.stringContaining("did you mean `priority`?")));
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
    expect(() => scheduler.tryAcquire({ tennant: "a" } as any)).toThrow(
      invalid(expect.stringContaining("Unknown option `tennant`; did you mean `tenant`?")),
    );
    await expect(scheduler.onIdle()).resolves.toBeUndefined();
  });

  it("accepts every key TaskOptions declares, one at a time (the key check's TASK_KEYS and the type agree)", () => {
    // `Required<TaskOptions>`: adding a key to TaskOptions without a value here fails the type check.
    const every: Required<TaskOptions> = {
      priority: "batch",
      tenant: "a",
      id: "request-1",
      signal: new AbortController().signal,
      timeoutMs: 1_000,
      cost: 1,
      tokens: 10,
      retry: false,
      claimedRetry: false,
    };
    const scheduler = createScheduler({ maxConcurrency: 1 });
    for (const [key, value] of Object.entries(every)) {
      const permit = scheduler.tryAcquire({ [key]: value });
      expect(permit, key).toBeDefined();
      permit?.release();
    }
  });
});

describe("per-call signal", () => {
  it("rejects a signal that is not an AbortSignal with INVALID_OPTION, and close() still finishes", async () => {
    const scheduler = createScheduler();
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
    const run = scheduler.run(() => 1, { signal: { aborted: false } as any });
    await expect(run).rejects.toThrow(invalid(expect.stringContaining("`signal` to be an AbortSignal")));
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
    await expect(scheduler.acquire({ signal: "stop" as any })).rejects.toMatchObject({
      code: "INVALID_OPTION",
    });
    await expect(scheduler.close()).resolves.toBeUndefined();
  });

  it("rejects retry flags that are not booleans", async () => {
    const scheduler = createScheduler();
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
    await expect(scheduler.run(() => 1, { retry: "yes" } as any)).rejects.toMatchObject({
      code: "INVALID_OPTION",
    });
  });
});

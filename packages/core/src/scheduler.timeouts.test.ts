import { describe, expect, it } from "vitest";
import { flush, Harness } from "../test/harness.js";
import { SchedulerError } from "./errors.js";

const lanes = {
  interactive: { weight: 5, queueTimeoutMs: 5_000, maxQueue: 3 },
  batch: { weight: 1, queueTimeoutMs: 60_000 },
};

describe("queue timeout", () => {
  it("rejects with QUEUE_TIMEOUT after the priority's queueTimeoutMs and never starts the task", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    h.submit("blocker", { priority: "batch" });
    h.submit("late", { priority: "interactive" });
    await flush();
    h.clock.advance(4_999);
    await flush();
    expect(h.outcomes.has("late")).toBe(false);
    h.clock.advance(1);
    await flush();
    expect(h.errorCode("late")).toBe("QUEUE_TIMEOUT");
    const error = h.outcomes.get("late")!.value as SchedulerError;
    expect(error).toBeInstanceOf(SchedulerError);
    expect(error.retryAfterMs).toBeGreaterThan(0);
    await h.finish("blocker");
    expect(h.startOrder).toEqual(["blocker"]);
    expect(h.scheduler.metrics().priorities.interactive!.rejected).toEqual({ QUEUE_TIMEOUT: 1 });
  });

  it("leaves the global Error.stackTraceLimit alone: a timeout's error is an ordinary SchedulerError", async () => {
    const engine = Error as { stackTraceLimit?: number };
    const limit = engine.stackTraceLimit;
    const written: unknown[] = [];
    Object.defineProperty(Error, "stackTraceLimit", {
      configurable: true,
      get: () => limit,
      set: (value: unknown) => written.push(value),
    });
    try {
      const h = new Harness({ maxConcurrency: 1, priorities: lanes });
      h.submit("blocker", { priority: "batch" });
      h.submit("late", { priority: "interactive" });
      await flush();
      h.clock.advance(5_000);
      await flush();
      expect(h.errorCode("late")).toBe("QUEUE_TIMEOUT");
      expect(written).toEqual([]);
      await h.finish("blocker");
    } finally {
      Object.defineProperty(Error, "stackTraceLimit", {
        configurable: true,
        enumerable: true,
        writable: true,
        value: limit,
      });
    }
  });

  it("keeps one timer for all queued tasks", async () => {
    const h = new Harness({
      maxConcurrency: 1,
      priorities: { batch: { queueTimeoutMs: 1_000, maxQueue: 10_000 } },
    });
    h.submit("blocker");
    for (let i = 0; i < 5_000; i++) h.submit(`t${i}`);
    await flush();
    expect(h.clock.pendingTimers).toBe(1);
    h.clock.advance(1_000);
    await flush();
    expect([...h.outcomes.values()].filter((outcome) => !outcome.ok)).toHaveLength(5_000);
    expect(h.scheduler.metrics().queued).toBe(0);
  });
});

describe("retries go to the front", () => {
  it("queues a task marked retry at the front of its tenant's queue", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    h.submit("blocker", { priority: "batch" });
    h.submit("first", { priority: "batch" });
    h.submit("again", { priority: "batch", retry: true });
    await flush();
    await h.finishInOrder(3);
    expect(h.startOrder).toEqual(["blocker", "again", "first"]);
  });

  it("treats an id that was recently rejected as a retry", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    h.submit("blocker", { priority: "batch" });
    for (let i = 0; i < 3; i++) h.submit(`q${i}`, { priority: "interactive" });
    h.submit("refused", { priority: "interactive", id: "req-9" });
    await flush();
    expect(h.errorCode("refused")).toBe("QUEUE_FULL");
    await h.finish("blocker"); // q0 starts, making room
    h.submit("refused-again", { priority: "interactive", id: "req-9" });
    await flush();
    await h.finishInOrder(2);
    expect(h.startOrder.slice(0, 3)).toEqual(["blocker", "q0", "refused-again"]);
  });

  it("treats an id whose run timed out as a retry", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    h.submit("slow", { priority: "batch", id: "req-1", timeoutMs: 100 });
    h.submit("waiting", { priority: "batch" });
    h.clock.advance(100);
    await flush();
    h.submit("slow-again", { priority: "batch", id: "req-1" });
    h.gates.get("slow")!.fail(new Error("aborted"));
    await flush();
    await h.finishInOrder(2);
    expect(h.startOrder).toEqual(["slow", "slow-again", "waiting"]);
  });

  it("forgets rejected ids after the retry window", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes, retryWindowMs: 1_000 });
    h.submit("blocker", { priority: "batch" });
    for (let i = 0; i < 3; i++) h.submit(`q${i}`, { priority: "interactive" });
    h.submit("refused", { priority: "interactive", id: "req-9" });
    await flush();
    await h.finish("blocker");
    h.clock.advance(2_000);
    h.submit("too-late", { priority: "interactive", id: "req-9" });
    await flush();
    await h.finishInOrder(2);
    expect(h.startOrder.slice(0, 3)).toEqual(["blocker", "q0", "q1"]);
  });
});

describe("admission", () => {
  it("rejects at once with QUEUE_FULL and a retry estimate from the measured start rate", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    h.submit("blocker", { priority: "batch" });
    for (let i = 0; i < 3; i++) h.submit(`q${i}`, { priority: "interactive" });
    await flush();
    // Starts every 100 ms: three queued ahead should drain in about 400 ms.
    for (let i = 0; i < 3; i++) {
      h.clock.advance(100);
      await h.finishInOrder(1);
      h.submit(`r${i}`, { priority: "interactive" });
    }
    await flush();
    h.submit("over", { priority: "interactive" });
    await flush();
    const error = h.outcomes.get("over")!.value as SchedulerError;
    expect(error.code).toBe("QUEUE_FULL");
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(200);
    expect(error.retryAfterMs).toBeLessThanOrEqual(800);
  });

  it("applies the overall maxQueue across priorities", async () => {
    const h = new Harness({ maxConcurrency: 1, maxQueue: 2, priorities: lanes });
    h.submit("blocker", { priority: "batch" });
    h.submit("a", { priority: "batch" });
    h.submit("b", { priority: "interactive" });
    h.submit("c", { priority: "batch" });
    await flush();
    expect(h.errorCode("c")).toBe("QUEUE_FULL");
  });

  it("rejects an unknown priority with INVALID_PRIORITY, or runs it as the default when configured", async () => {
    const strict = new Harness({ priorities: lanes });
    strict.submit("x", { priority: "urgent" });
    await flush();
    expect(strict.errorCode("x")).toBe("INVALID_PRIORITY");
    expect(strict.scheduler.metrics().rejected).toEqual({ INVALID_PRIORITY: 1 });
    const lenient = new Harness({ priorities: lanes, unknownPriority: "default" });
    lenient.submit("x", { priority: "urgent" });
    await flush();
    expect(lenient.startOrder).toEqual(["x"]);
  });

  it("rejects bad per-call options with INVALID_OPTION naming the field", async () => {
    const h = new Harness({ maxConcurrency: 2, priorities: lanes });
    await expect(h.scheduler.run(() => 1, { cost: 3 })).rejects.toThrow(
      /Expected `cost` to be an integer from 1 to 2/,
    );
    await expect(h.scheduler.run(() => 1, { tenant: "" })).rejects.toMatchObject({ code: "INVALID_OPTION" });
    await expect(h.scheduler.run(() => 1, { timeoutMs: -1 })).rejects.toMatchObject({
      code: "INVALID_OPTION",
    });
    // biome-ignore lint/suspicious/noExplicitAny: a caller without types
    await expect(h.scheduler.run("nope" as any)).rejects.toMatchObject({ code: "INVALID_OPTION" });
  });
});

describe("cancellation", () => {
  it("removes a queued task at once when its signal aborts, keeping the reason as cause", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    h.submit("blocker", { priority: "batch" });
    const controller = new AbortController();
    h.submit("gone", { priority: "batch", signal: controller.signal });
    await flush();
    expect(h.scheduler.metrics().queued).toBe(1);
    controller.abort(new Error("client left"));
    await flush();
    const error = h.outcomes.get("gone")!.value as SchedulerError;
    expect(error.code).toBe("ABORTED");
    expect((error.cause as Error).message).toBe("client left");
    expect(h.scheduler.metrics().queued).toBe(0);
    await h.finish("blocker");
    expect(h.startOrder).toEqual(["blocker"]);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const h = new Harness({ priorities: lanes });
    h.submit("x", { signal: AbortSignal.abort("nope") });
    await flush();
    expect(h.errorCode("x")).toBe("ABORTED");
    expect(h.startOrder).toEqual([]);
  });

  it("aborts a running task's signal and frees the slot when its function settles", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    const controller = new AbortController();
    h.submit("running", { priority: "batch", signal: controller.signal });
    h.submit("next", { priority: "batch" });
    await flush();
    controller.abort();
    await flush();
    expect(h.errorCode("running")).toBe("ABORTED");
    expect(h.gates.get("running")!.signal!.aborted).toBe(true);
    expect(h.startOrder).toEqual(["running"]); // the slot stays taken until the function settles
    h.gates.get("running")!.fail(new Error("fetch aborted"));
    await flush();
    expect(h.startOrder).toEqual(["running", "next"]);
  });
});

describe("run timeout", () => {
  it("aborts the task's signal, rejects with RUN_TIMEOUT, and frees the slot when the function settles", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    h.submit("slow", { priority: "batch", timeoutMs: 1_000 });
    h.submit("next", { priority: "batch" });
    await flush();
    h.clock.advance(1_000);
    await flush();
    expect(h.errorCode("slow")).toBe("RUN_TIMEOUT");
    const signal = h.gates.get("slow")!.signal!;
    expect(signal.aborted).toBe(true);
    expect((signal.reason as SchedulerError).code).toBe("RUN_TIMEOUT");
    expect(h.scheduler.metrics().running).toBe(1);
    h.gates.get("slow")!.finish("too late");
    await flush();
    expect(h.startOrder).toEqual(["slow", "next"]);
    expect(h.scheduler.metrics().priorities.batch!.failed).toBe(1);
  });

  it("frees the slot after abortGraceMs when the function ignores its signal", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes, abortGraceMs: 2_000 });
    const overruns: string[] = [];
    h.scheduler.on("overrun", (event) => overruns.push(event.id));
    h.submit("stubborn", { priority: "batch", timeoutMs: 1_000, id: "s1" });
    h.submit("next", { priority: "batch" });
    await flush();
    h.clock.advance(1_000);
    await flush();
    h.clock.advance(1_999);
    await flush();
    expect(h.startOrder).toEqual(["stubborn"]);
    h.clock.advance(1);
    await flush();
    expect(h.startOrder).toEqual(["stubborn", "next"]);
    expect(overruns).toEqual(["s1"]);
    h.gates.get("stubborn")!.finish();
    await flush();
    expect(h.scheduler.metrics().running).toBe(1); // the late settle frees nothing twice
  });

  it("rejects and frees the slot when the function throws synchronously", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    const thrown = h.scheduler.run(() => {
      throw new Error("boom");
    });
    h.submit("next");
    await expect(thrown).rejects.toThrow("boom");
    await flush();
    expect(h.startOrder).toEqual(["next"]);
  });
});

describe("a signal shared by many tasks", () => {
  it("gets one listener, and aborting it rejects every queued task sharing it", async () => {
    const h = new Harness({
      maxConcurrency: 1,
      priorities: { batch: { queueTimeoutMs: 1e9, maxQueue: 10_000 } },
    });
    const controller = new AbortController();
    const added = { count: 0 };
    const original = controller.signal.addEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<AbortSignal["addEventListener"]>) => {
      added.count++;
      original(...args);
    }) as AbortSignal["addEventListener"];
    h.submit("blocker");
    for (let i = 0; i < 2_000; i++) h.submit(`t${i}`, { signal: controller.signal });
    await flush();
    expect(added.count).toBeLessThanOrEqual(2);
    controller.abort();
    await flush();
    expect([...h.outcomes.values()].filter((outcome) => !outcome.ok)).toHaveLength(2_000);
    expect(h.scheduler.metrics().queued).toBe(0);
  });

  it("stops listening once the last task sharing it is done", async () => {
    const h = new Harness({ maxConcurrency: 2, priorities: { batch: {} } });
    const controller = new AbortController();
    const listening = new Set<unknown>();
    const { signal } = controller;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = (type: string, listener: EventListenerOrEventListenerObject) => {
      listening.add(listener);
      add(type, listener);
    };
    signal.removeEventListener = (type: string, listener: EventListenerOrEventListenerObject) => {
      listening.delete(listener);
      remove(type, listener);
    };
    h.submit("a", { signal });
    h.submit("b", { signal });
    await flush();
    expect(listening.size).toBe(1);
    await h.finish("a");
    expect(listening.size).toBe(1);
    await h.finish("b");
    expect(listening.size).toBe(0);
    controller.abort();
    await flush();
    expect(h.outcomes.get("a")!.ok && h.outcomes.get("b")!.ok).toBe(true);
  });
});

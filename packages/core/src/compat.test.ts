import { describe, expect, it } from "vitest";
import { flush } from "../test/harness.js";
import { VirtualClock } from "./clock.js";
import { LlmScheduler, type LlmSchedulerEvents, type Task, type TaskPriority } from "./compat.js";
import { SchedulerError } from "./errors.js";

/** A promise that settles when the virtual clock reaches `ms` from now. */
const after = (clock: VirtualClock, ms: number) =>
  new Promise<void>((resolve) => clock.setTimer(resolve, ms));

/** Moves the virtual clock timer by timer up to `ms` from now, letting promise chains run between. */
async function runFor(clock: VirtualClock, ms: number): Promise<void> {
  const end = clock.now() + ms;
  await flush();
  for (let next = clock.nextTimerAt(); next !== undefined && next <= end; next = clock.nextTimerAt()) {
    clock.advanceTo(next);
    await flush();
  }
  clock.advanceTo(end);
  await flush();
}

function record(scheduler: LlmScheduler): Array<[string, unknown]> {
  const seen: Array<[string, unknown]> = [];
  for (const name of ["queued", "started", "completed", "failed", "drained"] as const) {
    scheduler.on(name, (event: LlmSchedulerEvents[typeof name][0]) => seen.push([name, event]));
  }
  return seen;
}

describe("LlmScheduler, the write-up's API", () => {
  it("fires queued on every submit and drained after every task, with the write-up's payloads", async () => {
    const clock = new VirtualClock();
    const scheduler = new LlmScheduler({ maxConcurrency: 1, clock });
    const seen = record(scheduler);
    const firstDrain: number[] = [];
    scheduler.once("drained", ({ running, interactiveWaiting, batchWaiting }) => {
      firstDrain.push(running, interactiveWaiting, batchWaiting); // typed from the event map, no annotation
    });
    const boom = new Error("B");
    const a = scheduler.submit("a", "interactive", () => after(clock, 10).then(() => "A"));
    const b = scheduler.submit("b", "batch", () => after(clock, 10).then(() => Promise.reject(boom)));
    const c = scheduler.submit("c", "batch", async () => "C");
    expect(seen.slice(0, 4)).toEqual([
      ["queued", { id: "a", priority: "interactive", interactiveWaiting: 1, batchWaiting: 0 }],
      ["started", { id: "a", priority: "interactive" }],
      ["queued", { id: "b", priority: "batch", interactiveWaiting: 0, batchWaiting: 1 }],
      ["queued", { id: "c", priority: "batch", interactiveWaiting: 0, batchWaiting: 2 }],
    ]);
    await runFor(clock, 100);
    expect(await a).toBe("A");
    await expect(b).rejects.toBe(boom);
    expect(await c).toBe("C");
    const drained = seen.filter(([name]) => name === "drained").map(([, event]) => event);
    expect(drained).toEqual([
      { running: 0, interactiveWaiting: 0, batchWaiting: 2 },
      { running: 0, interactiveWaiting: 0, batchWaiting: 1 },
      { running: 0, interactiveWaiting: 0, batchWaiting: 0 },
    ]);
    expect(firstDrain).toEqual([0, 0, 2]);
    expect(seen).toContainEqual(["failed", { id: "b", priority: "batch", error: boom }]);
    expect(scheduler.getMetrics()).toMatchObject({ running: 0, interactiveWaiting: 0, batchWaiting: 0 });
    expect(scheduler.getMetrics()).toMatchObject({ completed: 2, failed: 1 });
    await scheduler.close();
  });

  it("bounds both queues together with maxQueueSize: the next submit rejects with 'queue is full'", async () => {
    const clock = new VirtualClock();
    const scheduler = new LlmScheduler({ maxConcurrency: 1, maxQueueSize: 2, clock });
    const seen = record(scheduler);
    const running = scheduler.submit("run", "batch", () => after(clock, 10));
    const queued = [
      scheduler.submit("q1", "batch", async () => 1),
      scheduler.submit("q2", "interactive", async () => 2),
    ];
    const full = scheduler.submit("q3", "interactive", async () => 3);
    await expect(full).rejects.toThrow(SchedulerError);
    await expect(full).rejects.toMatchObject({ code: "QUEUE_FULL", message: "queue is full", id: "q3" });
    expect(seen.filter(([name]) => name === "queued")).toHaveLength(3);
    await runFor(clock, 20);
    await expect(Promise.all([running, ...queued])).resolves.toEqual([undefined, 1, 2]);
    await expect(scheduler.submit("q4", "batch", async () => 4)).resolves.toBe(4);
  });

  it("aborts a task's signal after runTimeoutMs and rejects its caller with RUN_TIMEOUT", async () => {
    const clock = new VirtualClock();
    const scheduler = new LlmScheduler({ maxConcurrency: 1, runTimeoutMs: 1_000, clock });
    let signal: AbortSignal | undefined;
    const slow = scheduler.submit("slow", "interactive", (given) => {
      signal = given;
      return new Promise((_, reject) => given.addEventListener("abort", () => reject(given.reason)));
    });
    await runFor(clock, 999);
    expect(signal?.aborted).toBe(false);
    await runFor(clock, 1);
    await expect(slow).rejects.toMatchObject({ code: "RUN_TIMEOUT" });
    expect(signal?.aborted).toBe(true);
    expect(scheduler.getMetrics().running).toBe(0);
  });

  it("rejects a task that waits longer than its lane's queue timeout, and counts it", async () => {
    const clock = new VirtualClock();
    const scheduler = new LlmScheduler({ maxConcurrency: 1, interactiveQueueTimeoutMs: 3_000, clock });
    const blocker = scheduler.submit("blocker", "batch", () => after(clock, 10_000));
    const late = scheduler.submit("late", "interactive", async () => "never");
    await runFor(clock, 3_000);
    await expect(late).rejects.toMatchObject({ code: "QUEUE_TIMEOUT", id: "late" });
    expect(scheduler.getMetrics()).toMatchObject({ interactiveWaiting: 0, timedOut: 1, running: 1 });
    await runFor(clock, 7_000);
    await blocker;
  });

  it("serves interactive tasks promptly behind a long batch backlog instead of timing them out", async () => {
    const clock = new VirtualClock();
    const scheduler = new LlmScheduler({ maxConcurrency: 4, interactiveQueueTimeoutMs: 5_000, clock });
    const starts: string[] = [];
    const work = (name: string, ms: number) => () => {
      starts.push(name);
      return after(clock, ms);
    };
    const batch = Array.from({ length: 400 }, (_, i) =>
      scheduler.submit(`batch-${i}`, "batch", work(`batch-${i}`, 5)).catch(() => "failed"),
    );
    await runFor(clock, 20);
    expect(scheduler.getMetrics().batchWaiting).toBeGreaterThan(300);
    const before = starts.length;
    const chats = Array.from({ length: 20 }, (_, i) =>
      scheduler.submit(`chat-${i}`, "interactive", work(`chat-${i}`, 1)),
    );
    await runFor(clock, 1_000);
    const interactive = await Promise.allSettled(chats);
    expect(interactive.every((result) => result.status === "fulfilled")).toBe(true);
    // Scored by queue length, all ~390 waiting batch items would start first. Weighted 5:1 with a
    // reserved slot, the 20 chats need at most a handful of batch starts beside them.
    const during = starts.slice(before, starts.indexOf("chat-19") + 1);
    expect(during.filter((name) => name.startsWith("batch")).length).toBeLessThanOrEqual(12);
    expect(scheduler.getMetrics().timedOut).toBe(0);
    await runFor(clock, 10_000);
    expect(await Promise.all(batch)).not.toContain("failed");
  });

  it("accepts the write-up's Task shape and TaskPriority type", async () => {
    const scheduler = new LlmScheduler({ maxConcurrency: 2 });
    const priority: TaskPriority = "batch";
    const task: Task<string> = { id: "t", priority, run: async () => "done" };
    await expect(scheduler.submit(task.id, task.priority, task.run)).resolves.toBe("done");
  });
});

describe("LlmScheduler under abuse", () => {
  it("keeps running when listeners throw, and reports their errors on `error`", async () => {
    const clock = new VirtualClock();
    const scheduler = new LlmScheduler({ maxConcurrency: 1, clock });
    const reported: unknown[] = [];
    for (const name of ["queued", "started", "completed", "drained"] as const) {
      scheduler.on(name, () => {
        throw new Error(name);
      });
    }
    scheduler.on("error", (error) => {
      reported.push((error as Error).message);
      throw new Error("the error listener throws too");
    });
    const results = [
      scheduler.submit("a", "batch", async () => 1),
      scheduler.submit("b", "batch", async () => 2),
    ];
    await runFor(clock, 10);
    await expect(Promise.all(results)).resolves.toEqual([1, 2]);
    expect(reported).toEqual([
      "queued",
      "started",
      "queued",
      "completed",
      "drained",
      "started",
      "completed",
      "drained",
    ]);
    expect(scheduler.getMetrics()).toMatchObject({ running: 0, interactiveWaiting: 0, batchWaiting: 0 });
    await expect(scheduler.scheduler.onIdle()).resolves.toBeUndefined();
  });

  it("rejects bad submits with typed errors and leaves its counts untouched", async () => {
    const scheduler = new LlmScheduler({ maxConcurrency: 1 });
    const seen = record(scheduler);
    await expect(scheduler.submit("x", "urgent" as TaskPriority, async () => 1)).rejects.toMatchObject({
      code: "INVALID_PRIORITY",
    });
    await expect(scheduler.submit(42 as unknown as string, "batch", async () => 1)).rejects.toMatchObject({
      code: "INVALID_OPTION",
    });
    await expect(scheduler.submit("y", "batch", "run" as never)).rejects.toMatchObject({
      code: "INVALID_OPTION",
    });
    await scheduler.close();
    await expect(scheduler.submit("z", "batch", async () => 1)).rejects.toMatchObject({ code: "CLOSED" });
    expect(seen).toEqual([]);
    expect(scheduler.getMetrics()).toMatchObject({ running: 0, interactiveWaiting: 0, batchWaiting: 0 });
  });

  it("names an unknown or misspelled option and the nearest known one", () => {
    expect(() => new LlmScheduler({ maxConcurency: 4 } as never)).toThrow(
      "Unknown option `maxConcurency`; did you mean `maxConcurrency`?",
    );
    expect(() => new LlmScheduler({ maxConcurrency: 4, interactiveWieght: 3 } as never)).toThrow(
      "Unknown option `interactiveWieght`; did you mean `interactiveWeight`?",
    );
    expect(() => new LlmScheduler({ maxConcurrency: 4, maxQueue: 10 } as never)).toThrow(
      /^Unknown option `maxQueue` \(known: `maxConcurrency`, .*`maxQueueSize`/,
    );
    expect(() => new LlmScheduler(null as never)).toThrow("Expected `options` to be an object");
  });

  it.each([
    [{ maxConcurrency: 0 }, "Expected `maxConcurrency` to be an integer from 1 to 1000000, got `0`"],
    [{ maxConcurrency: 1.5 }, "Expected `maxConcurrency` to be an integer from 1 to 1000000"],
    [{ maxConcurrency: 2_000_000 }, "Expected `maxConcurrency` to be an integer from 1 to 1000000"],
    [
      { maxConcurrency: 2, interactiveWeight: 0 },
      "Expected `interactiveWeight` to be a number in (0, 1000000]",
    ],
    [{ maxConcurrency: 2, batchWeight: Number.NaN }, "Expected `batchWeight` to be a number in (0, 1000000]"],
    [
      { maxConcurrency: 2, interactiveQueueTimeoutMs: -1 },
      "Expected `interactiveQueueTimeoutMs` to be a number of milliseconds above 0",
    ],
    [
      { maxConcurrency: 2, batchQueueTimeoutMs: "5s" },
      "Expected `batchQueueTimeoutMs` to be a number of milliseconds above 0",
    ],
    [{ maxConcurrency: 2, maxQueueSize: 0 }, "Expected `maxQueueSize` to be an integer from 1 to"],
    [
      { maxConcurrency: 2, runTimeoutMs: 0 },
      "Expected `runTimeoutMs` to be a number of milliseconds above 0",
    ],
    [
      { maxConcurrency: 2, interactiveReserved: 3 },
      "Expected `interactiveReserved` to be an integer from 0 to 2",
    ],
    [
      { maxConcurrency: 2, batchMaxWaitMs: Number.NaN },
      "Expected `batchMaxWaitMs` to be a number of milliseconds above 0",
    ],
  ])("checks the range of every number: %j", (options, message) => {
    expect(() => new LlmScheduler(options as never)).toThrow(message);
  });
});

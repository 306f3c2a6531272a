import { describe, expect, it } from "vitest";
import { flush, Harness } from "../test/harness.js";
import {
  preemptionHarness as harness,
  preemptionLanes as lanes,
  polite,
} from "../test/preemption-harness.js";
import { createScheduler } from "./scheduler.js";
import type { Store } from "./store.js";

describe("preemption", () => {
  it("stops the batch task that ran the shortest, hands its slot to the arrival and runs it again", async () => {
    const { h, preempted } = harness();
    const b1 = polite(h, "b1");
    h.clock.advance(100);
    const b2 = polite(h, "b2");
    const b3 = polite(h, "b3");
    await flush();
    h.clock.advance(400);
    h.submit("chat", { priority: "interactive" });
    await flush();
    expect(h.gates.get("b2")!.signal!.reason.code).toBe("PREEMPTED");
    expect(h.gates.get("b1")!.signal!.aborted).toBe(false);
    expect(h.startOrder).toEqual(["b1", "b2", "chat"]);
    expect(preempted).toEqual([
      {
        id: "b2",
        priority: "batch",
        tenant: "default",
        cost: 1,
        runMs: 400,
        preemptions: 1,
        by: "interactive",
      },
    ]);
    await h.finish("chat");
    // b2 went back to the front of the batch queue: it runs before b3, which was queued behind it.
    expect(h.startOrder).toEqual(["b1", "b2", "chat", "b2"]);
    await h.finish("b2", "second run");
    await h.finish("b1");
    await h.finish("b3");
    await expect(b2).resolves.toBe("second run");
    await expect(b1).resolves.toBe("b1");
    await expect(b3).resolves.toBe("b3");
    const batch = h.scheduler.metrics().priorities.batch!;
    expect(batch).toMatchObject({ preempted: 1, preemptedRunMs: 400, failed: 0, completed: 3 });
  });

  it("a victim waiting again does not hold up the queue timeouts of tasks queued behind its first wait", async () => {
    const { h } = harness({ maxConcurrency: 1 });
    const outcomes = new Map<string, unknown>();
    const watch = (name: string, result: Promise<unknown>): void => {
      result.then(
        (value) => outcomes.set(name, value),
        (error: { code?: string }) => outcomes.set(name, error.code),
      );
    };
    const first = h.submit("first", { priority: "batch", tenant: "one" });
    watch("x", polite(h, "x", { priority: "batch", tenant: "one" }));
    watch("v", polite(h, "v", { priority: "batch", tenant: "one", retry: true }));
    await flush();
    h.clock.advance(1_000);
    watch("w", polite(h, "w", { priority: "batch", tenant: "one" }));
    await flush();
    await h.finish("first");
    await first;
    expect(h.startOrder).toEqual(["first", "v"]); // a retry goes first: x, queued before v, still waits
    h.clock.advance(1_000);
    h.submit("chat", { priority: "interactive" }); // preempts v, which waits again with a later deadline
    await flush();
    expect(h.startOrder).toEqual(["first", "v", "chat"]);
    h.clock.advance(3_600_000 - 2_000); // x's queue deadline
    await flush();
    expect(outcomes.get("x")).toBe("QUEUE_TIMEOUT");
    h.clock.advance(1_000); // w's, queued 1 s after x: before v's second deadline
    await flush();
    expect(outcomes.get("w")).toBe("QUEUE_TIMEOUT");
    expect(outcomes.has("v")).toBe(false);
    h.clock.advance(1_000);
    await flush();
    expect(outcomes.get("v")).toBe("QUEUE_TIMEOUT");
  });

  it("keeps the limit while the victim winds down: the arrival waits for the end of the grace", async () => {
    const { h } = harness({ maxConcurrency: 1 });
    h.submit("stubborn", { priority: "batch" }); // ignores its signal
    await flush();
    h.submit("chat", { priority: "interactive" });
    await flush();
    expect(h.gates.get("stubborn")!.signal!.aborted).toBe(true);
    h.clock.advance(4_999);
    await flush();
    expect(h.startOrder).toEqual(["stubborn"]);
    expect(h.scheduler.metrics().running).toBe(1);
    h.clock.advance(1);
    await flush();
    expect(h.startOrder).toEqual(["stubborn", "chat"]);
    expect(h.scheduler.metrics().running).toBe(1);
    // The first run settles late: ignored, the task waits for its second run.
    h.gates.get("stubborn")!.finish("late");
    await flush();
    expect(h.outcomes.has("stubborn")).toBe(false);
    await h.finish("chat");
    expect(h.startOrder).toEqual(["stubborn", "chat", "stubborn"]);
    await h.finish("stubborn", "done");
    expect(h.outcomes.get("stubborn")).toEqual({ ok: true, value: "done" });
  });

  it("chooses the least urgent priority first", async () => {
    const h = new Harness({
      maxConcurrency: 2,
      priorities: {
        interactive: { preempts: ["normal", "batch"] },
        normal: {},
        batch: {},
      },
    });
    h.submit("batch", { priority: "batch" });
    h.clock.advance(10);
    h.submit("normal", { priority: "normal" });
    await flush();
    h.submit("chat", { priority: "interactive" });
    await flush();
    expect(h.gates.get("batch")!.signal!.aborted).toBe(true);
    expect(h.gates.get("normal")!.signal!.aborted).toBe(false);
  });

  it("stops at most one victim at a time, then serves the next arrival", async () => {
    const { h, preempted } = harness();
    polite(h, "b1");
    polite(h, "b2");
    await flush();
    h.submit("c1", { priority: "interactive" });
    h.submit("c2", { priority: "interactive" });
    await flush();
    expect(preempted.map((event) => event.id)).toEqual(["b2", "b1"]);
    expect(h.startOrder).toEqual(["b1", "b2", "c1", "c2"]);
    expect(h.scheduler.metrics().running).toBe(2);
  });

  it("does not stop a second victim while the first still holds its slot", async () => {
    const { h, preempted } = harness();
    h.submit("b1", { priority: "batch", id: "b1" }); // these ignore their signals
    h.submit("b2", { priority: "batch", id: "b2" });
    await flush();
    h.submit("c1", { priority: "interactive" });
    h.submit("c2", { priority: "interactive" });
    await flush();
    expect(preempted.map((event) => event.id)).toEqual(["b2"]);
    await h.finish("b2");
    expect(h.startOrder).toEqual(["b1", "b2", "c1"]);
    expect(preempted.map((event) => event.id)).toEqual(["b2", "b1"]);
    await h.finish("b1");
    expect(h.startOrder).toEqual(["b1", "b2", "c1", "c2"]);
  });

  it("makes a task immune after maxPerTask preemptions", async () => {
    const { h, preempted } = harness({ maxConcurrency: 1 });
    const batch = polite(h, "b");
    await flush();
    for (let i = 0; i < 3; i++) {
      h.submit(`c${i}`, { priority: "interactive" });
      await flush();
      if (h.gates.has(`c${i}`)) await h.finish(`c${i}`);
    }
    expect(preempted.map((event) => event.preemptions)).toEqual([1, 2]);
    expect(h.startOrder).toEqual(["b", "c0", "b", "c1", "b"]);
    await h.finish("c2").catch(() => {}); // c2 has not started: b is immune
    expect(h.gates.has("c2")).toBe(false);
    await h.finish("b");
    await expect(batch).resolves.toBe("b");
    expect(h.startOrder).toEqual(["b", "c0", "b", "c1", "b", "c2"]);
  });

  it("never takes a priority below its reserved slots, and needs no victim when a reserved slot is free", async () => {
    const { h, preempted } = harness({
      priorities: {
        interactive: { reserved: 1, preempts: ["batch"] },
        batch: { reserved: 1 },
      },
      maxConcurrency: 3,
    });
    polite(h, "b1");
    polite(h, "b2");
    await flush();
    h.submit("c1", { priority: "interactive" }); // its reserved slot is free
    await flush();
    expect(preempted).toEqual([]);
    h.submit("c2", { priority: "interactive" });
    await flush();
    expect(preempted.map((event) => event.id)).toEqual(["b2"]);
    h.submit("c3", { priority: "interactive" });
    await flush();
    expect(preempted.map((event) => event.id)).toEqual(["b2"]); // b1 is batch's reserved slot
    expect(h.startOrder).toEqual(["b1", "b2", "c1", "c2"]);
  });

  it("hands the freed slot to the arrival, not to what the weights would pick", async () => {
    const h = new Harness({
      maxConcurrency: 1,
      priorities: {
        interactive: { weight: 1, preempts: ["batch"] },
        normal: { weight: 1_000 },
        batch: { weight: 1 },
      },
    });
    h.submit("b", { priority: "batch" });
    await flush();
    h.submit("n1", { priority: "normal" });
    h.submit("n2", { priority: "normal" });
    h.submit("chat", { priority: "interactive" });
    await flush();
    await h.finish("b"); // the victim lets go: its slot is the arrival's, whatever `normal` weighs
    expect(h.startOrder).toEqual(["b", "chat"]);
    await h.finish("chat");
    expect(h.startOrder).toEqual(["b", "chat", "n1"]);
  });

  it("can be turned on by update(), which validates it like createScheduler()", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: { interactive: {}, batch: {} } });
    expect(() => h.scheduler.update({ priorities: { interactive: { preempts: ["nope"] } } })).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION" }),
    );
    await h.scheduler.update({ priorities: { interactive: { preempts: ["batch"] } } });
    h.submit("b", { priority: "batch" });
    await flush();
    h.submit("chat", { priority: "interactive" });
    await flush();
    expect(h.gates.get("b")!.signal!.reason).toMatchObject({ code: "PREEMPTED" });
  });

  it("keeps aging: the task's wait counts from its first arrival", async () => {
    const { h } = harness({ maxConcurrency: 1 });
    const starts: number[] = [];
    h.scheduler.on("started", (event) => {
      if (event.id === "b") starts.push(event.waitMs);
    });
    polite(h, "b");
    await flush();
    h.clock.advance(1_000);
    h.submit("chat", { priority: "interactive" });
    await flush();
    h.clock.advance(500);
    await h.finish("chat");
    expect(starts).toEqual([0, 1_500]);
  });

  it("answers a caller that aborts while its preempted task winds down, once, and never runs it again", async () => {
    const { h } = harness({ maxConcurrency: 1 });
    const controller = new AbortController();
    const settled: string[] = [];
    h.scheduler.run(h.task("b"), { priority: "batch", signal: controller.signal }).then(
      () => settled.push("ok"),
      (error: { code: string }) => settled.push(error.code),
    );
    await flush();
    h.submit("chat", { priority: "interactive" });
    await flush();
    controller.abort();
    await flush();
    expect(settled).toEqual(["ABORTED"]);
    await h.finish("b");
    await h.finish("chat");
    expect(h.startOrder).toEqual(["b", "chat"]);
    expect(settled).toEqual(["ABORTED"]);
    await h.scheduler.onIdle();
  });

  it("preempts a permit before its first byte, never after", async () => {
    const { h } = harness({ maxConcurrency: 1 });
    const failed: Array<string | undefined> = [];
    h.scheduler.on("failed", (event) => failed.push(event.code));
    const permit = await h.scheduler.acquire({ priority: "batch" });
    expect(permit.wantsFirstByte).toBe(true);
    permit.signal.addEventListener("abort", () => permit.release());
    h.submit("chat", { priority: "interactive" });
    await flush();
    expect(permit.signal.reason.code).toBe("PREEMPTED");
    expect(h.startOrder).toEqual(["chat"]);
    // A permit cannot run again: it ends as failed with PREEMPTED, so request counts stay whole.
    expect(failed).toEqual(["PREEMPTED"]);
    expect(h.scheduler.metrics().priorities.batch!.failed).toBe(1);
    await h.finish("chat");

    const streaming = await h.scheduler.acquire({ priority: "batch" });
    streaming.firstByte();
    h.submit("chat2", { priority: "interactive" });
    await flush();
    expect(streaming.signal.aborted).toBe(false);
    expect(h.startOrder).toEqual(["chat"]);
    streaming.release();
    await flush();
    expect(h.startOrder).toEqual(["chat", "chat2"]);
  });

  it("rejects with CLOSED a preempted task when the scheduler closes without draining", async () => {
    const { h } = harness({ maxConcurrency: 1 });
    h.submit("b", { priority: "batch" });
    await flush();
    h.submit("chat", { priority: "interactive" });
    await flush();
    const closing = h.scheduler.close({ timeoutMs: 10_000 });
    await flush();
    h.gates.get("b")!.finish();
    await flush();
    expect(h.errorCode("b")).toBe("CLOSED");
    expect(h.errorCode("chat")).toBe("CLOSED");
    await closing;
  });
});

describe("preemption options", () => {
  const invalid = (priorities: Record<string, unknown>) => () =>
    createScheduler({ priorities: priorities as never });

  it("refuses unknown names, itself, bad ranges and unknown keys with INVALID_OPTION", () => {
    for (const priorities of [
      { interactive: { preempts: ["bacth"] }, batch: {} },
      { interactive: { preempts: ["interactive"] }, batch: {} },
      { interactive: { preempts: "batch" }, batch: {} },
      { interactive: { preempts: ["batch"] }, batch: { preemptible: { maxPerTask: 0 } } },
      { interactive: { preempts: ["batch"] }, batch: { preemptible: { maxPerTask: 101 } } },
      { interactive: { preempts: ["batch"] }, batch: { preemptible: { maxPerTsk: 2 } } },
      { interactive: { preempts: ["batch"] }, batch: { preemptible: true } },
      { interactive: { preemts: ["batch"] }, batch: {} },
    ]) {
      expect(invalid(priorities)).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
    }
  });

  it("names the closest key", () => {
    expect(
      invalid({ interactive: { preempts: ["batch"] }, batch: { preemptible: { maxPerTsk: 2 } } }),
    ).toThrow(/maxPerTask/);
  });

  it("refuses preemption on a store that cannot hand a slot over", () => {
    const memory = createScheduler();
    memory.close();
    const store = {
      attach() {},
      configure() {},
      enqueue: () => "queued" as const,
      remove: () => false,
      release() {},
      removeAll: () => [],
      depth: () => 0,
      snapshot: () => ({ running: 0, queued: 0, priorities: {}, tenants: [] }),
      detach() {},
    } satisfies Store;
    expect(() => createScheduler({ store, priorities: lanes })).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringContaining("preempts") }),
    );
  });
});

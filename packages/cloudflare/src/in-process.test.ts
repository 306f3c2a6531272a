import { createScheduler } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { DurableObjectStore } from "./durable-object-store.js";
import { inProcessNamespace } from "./in-process.js";

const options = {
  maxConcurrency: 2,
  priorities: { interactive: { weight: 100 }, batch: { weight: 1 } },
};

describe("DurableObjectStore over inProcessNamespace", () => {
  it("makes two schedulers share one limit and one queue", async () => {
    const namespace = inProcessNamespace();
    const a = createScheduler({ ...options, store: new DurableObjectStore({ namespace, name: "m" }) });
    const b = createScheduler({ ...options, store: new DurableObjectStore({ namespace, name: "m" }) });
    let running = 0;
    let most = 0;
    const order: string[] = [];
    const gates: Array<() => void> = [];
    const task = (label: string) => async () => {
      running++;
      most = Math.max(most, running);
      order.push(label);
      await new Promise<void>((resolve) => gates.push(resolve));
      running--;
    };
    const held = [a.run(task("a1"), { priority: "batch" }), b.run(task("b1"), { priority: "batch" })];
    while (gates.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    // Batch work queued on a, then interactive work on b: b's goes first, from the one shared queue.
    const queued = [a.run(task("a2"), { priority: "batch" }), a.run(task("a3"), { priority: "batch" })];
    while (a.metrics().queued < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    queued.push(b.run(task("b2"), { priority: "interactive" }));
    while (b.metrics().queued < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    for (let released = 0; released < 5; released++) {
      while (gates.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      gates.shift()!();
    }
    await Promise.all([...held, ...queued]);
    expect(most).toBe(2);
    expect(order.slice(0, 3)).toEqual(["a1", "b1", "b2"]);
    await Promise.all([a.close(), b.close()]);
  });

  it("refuses preemption at createScheduler(): the object cannot hand a slot over (no handOver, requeue or releasePreempted)", () => {
    const store = new DurableObjectStore({ namespace: inProcessNamespace() });
    expect(() =>
      createScheduler({ store, priorities: { interactive: { preempts: ["batch"] }, batch: {} } }),
    ).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringContaining("preempts") }),
    );
  });
});

import { describe, expect, it } from "vitest";
import { admitExtras, admitPriority, admitTenant, type TaskOptions } from "./admission.js";
import { VirtualClock } from "./clock.js";
import { PriorityBook } from "./priority-book.js";
import { resolveOptions } from "./resolve-options.js";
import { RunContext, Task } from "./task.js";

const config = resolveOptions({ clock: new VirtualClock(), priorities: { batch: { maxConcurrency: 4 } } });
const onAbort = (): void => {};
const noUsage = (): void => {};

function taskFor(options: TaskOptions, retry = false): Task {
  const tenant = admitTenant(options, config);
  const priority = admitPriority(options, config, tenant);
  const extras = admitExtras(retry ? { ...options, retry } : options, priority, onAbort);
  const book = new PriorityBook(priority.name, priority.queueTimeoutMs);
  return new Task(7, 1_000.5, book, tenant, extras, () => "done", noUsage);
}

describe("Task", () => {
  it("keeps no side object for a call that leaves every per-call setting at its default", () => {
    const task = taskFor({ priority: "batch", tenant: "acme" });
    expect(task.extras).toBeNull();
    expect([task.id, task.givenId, task.signal, task.timeoutMs]).toEqual([
      "7",
      undefined,
      null,
      Number.POSITIVE_INFINITY,
    ]);
    expect([task.cost, task.tokens, task.retry, task.priority, task.tenant]).toEqual([
      1,
      0,
      false,
      "batch",
      "acme",
    ]);
  });

  it("reads each setting a call gives from one side object", () => {
    const signal = new AbortController().signal;
    const task = taskFor({ id: "req-1", signal, timeoutMs: 5_000, cost: 2, tokens: 300 }, true);
    expect(task.extras).not.toBeNull();
    expect([task.id, task.givenId, task.signal, task.timeoutMs]).toEqual(["req-1", "req-1", signal, 5_000]);
    expect([task.cost, task.tokens, task.retry]).toEqual([2, 300, true]);
    for (const options of [{ id: "x" }, { signal }, { timeoutMs: 1 }, { cost: 2 }, { tokens: 1 }]) {
      expect(taskFor(options).extras).not.toBeNull();
    }
    expect(taskFor({}, true).extras).not.toBeNull();
  });

  it("has a start time and an abortable signal only once its run has begun", () => {
    const task = taskFor({});
    expect([task.startedAt, task.aborted]).toEqual([0, false]);
    task.abort(new Error("before the start")); // nothing to abort yet
    expect(task.aborted).toBe(false);
    task.run = new RunContext(task, 250, noUsage);
    expect(task.startedAt).toBe(1_250.5);
    expect(task.run?.signal.aborted).toBe(false);
    const reason = new Error("stop");
    task.abort(reason);
    expect(task.aborted).toBe(true);
    expect(task.run?.signal.reason).toBe(reason);
  });
});

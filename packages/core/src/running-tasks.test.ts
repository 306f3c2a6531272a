import { describe, expect, it } from "vitest";
import { PriorityBook } from "./priority-book.js";
import { RunningTasks } from "./running-tasks.js";
import { createScheduler } from "./scheduler.js";
import { RunContext, type Task } from "./task.js";

const interactive = new PriorityBook("interactive", 1_000);
const batch = new PriorityBook("batch", 1_000);
/** A started task as far as the list reads it: its book, its cost and its run's context. */
function task(book: PriorityBook, cost: number): Task {
  const started = { book, cost } as { book: PriorityBook; cost: number; run: RunContext };
  started.run = new RunContext(started as unknown as Task, 0, () => {});
  return started as unknown as Task;
}

describe("RunningTasks", () => {
  it("sums cost per priority and in all as tasks come and go; a task counts once", () => {
    const running = new RunningTasks();
    const a = task(interactive, 2);
    const b = task(batch, 3);
    running.add(a).add(b).add(a);
    expect([running.size, running.totalCost]).toEqual([2, 5]);
    expect([interactive.runningCost, batch.runningCost]).toEqual([2, 3]);
    expect(running.delete(a)).toBe(true);
    expect(running.delete(a)).toBe(false);
    expect([running.totalCost, interactive.runningCost, batch.runningCost]).toEqual([3, 0, 3]);
  });

  it("keeps the order tasks started in, whichever leaves, and unlinks a task that leaves", () => {
    const running = new RunningTasks();
    const [a, b, c, d] = [1, 2, 3, 4].map(() => task(batch, 1)) as [Task, Task, Task, Task];
    running.add(a).add(b).add(c).add(d);
    running.delete(b); // from the middle
    expect([...running]).toEqual([a, c, d]);
    running.delete(a); // the first
    running.delete(d); // the last
    expect([...running]).toEqual([c]);
    expect([b.run!.runPrev, b.run!.runNext, a.run!.runNext, d.run!.runPrev]).toEqual([
      null,
      null,
      null,
      null,
    ]);
    running.delete(c);
    expect([[...running], running.size, running.totalCost]).toEqual([[], 0, 0]);
    running.add(d).add(a);
    expect([...running]).toEqual([d, a]);
    expect([running.has(a), running.has(b)]).toEqual([true, false]);
  });

  it("shows no other running task in a permit that is serialized or logged", () => {
    const scheduler = createScheduler({ maxConcurrency: 4 });
    const [first, middle, last] = [1, 2, 3].map(() => scheduler.tryAcquire()!);
    expect(JSON.parse(JSON.stringify(middle))).toEqual({ waitMs: 0 });
    expect(Object.keys(middle!)).toEqual(["waitMs"]);
    for (const permit of [first, middle, last]) permit!.release();
    expect(scheduler.metrics().running).toBe(0);
  });
});

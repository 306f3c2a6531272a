import { describe, expect, it } from "vitest";
import { PriorityBook } from "./priority-book.js";
import { RunningTasks } from "./running-tasks.js";
import type { Task } from "./task.js";

const interactive = new PriorityBook("interactive", 1_000);
const batch = new PriorityBook("batch", 1_000);
const task = (book: PriorityBook, cost: number) => ({ book, cost }) as Task;

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
    running.clear();
    expect([running.size, running.totalCost, batch.runningCost]).toEqual([0, 0, 0]);
  });
});

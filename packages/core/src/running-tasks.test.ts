import { describe, expect, it } from "vitest";
import { RunningTasks } from "./running-tasks.js";
import type { Task } from "./task.js";

const task = (priority: string, cost: number) => ({ priority, cost }) as Task;

describe("RunningTasks", () => {
  it("sums cost per priority and in all as tasks come and go; a task counts once", () => {
    const running = new RunningTasks();
    const a = task("interactive", 2);
    const b = task("batch", 3);
    running.add(a).add(b).add(a);
    expect([running.size, running.totalCost]).toEqual([2, 5]);
    expect([running.costOf("interactive"), running.costOf("batch"), running.costOf("other")]).toEqual([
      2, 3, 0,
    ]);
    expect(running.delete(a)).toBe(true);
    expect(running.delete(a)).toBe(false);
    expect([running.totalCost, running.costOf("interactive"), running.costOf("batch")]).toEqual([3, 0, 3]);
    running.clear();
    expect([running.size, running.totalCost, running.costOf("batch")]).toEqual([0, 0, 0]);
  });
});

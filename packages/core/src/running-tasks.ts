import type { RunContext, Task } from "./task.js";

/**
 * The tasks that hold a slot, in the order they started, with their cost summed per priority as they
 * come and go (in each priority's book, which the task points at), so that "how much of priority P runs
 * here" is O(1) (the wait-target controller asks at every start).
 *
 * A list linked through each task's run context (`runPrev`/`runNext`), made at the start, rather than a
 * `Set`: a start and an end cost a few field writes and no hash table, where a `Set` hashes on every add
 * and delete and rebuilds its table as permits come and go, once per HTTP request
 * (docs/decisions/0008-running-tasks-linked-list.md). Only a started task (one with a run context) may
 * be added.
 */
export class RunningTasks implements Iterable<Task> {
  #head: Task | null = null;
  #tail: Task | null = null;
  #size = 0;
  #total = 0;

  /** Tasks on the list. */
  get size(): number {
    return this.#size;
  }

  /** Cost units running on this instance, over all priorities. */
  get totalCost(): number {
    return this.#total;
  }

  /** True when `task` is on the list. */
  has(task: Task): boolean {
    const run = task.run;
    return run !== null && (run.runPrev !== null || this.#head === task);
  }

  /** Puts a started `task` at the end of the list; a task already on it counts once. */
  add(task: Task): this {
    if (this.has(task)) return this;
    const tail = this.#tail;
    const run = task.run!;
    run.runPrev = tail;
    run.runNext = null;
    if (tail === null) this.#head = task;
    else linksOf(tail).runNext = task;
    this.#tail = task;
    this.#size++;
    task.book.runningCost += task.cost;
    this.#total += task.cost;
    return this;
  }

  /** Takes `task` off the list; false when it was not on it. */
  delete(task: Task): boolean {
    if (!this.has(task)) return false;
    const run = task.run!;
    const { runPrev: prev, runNext: next } = run;
    if (prev === null) this.#head = next;
    else linksOf(prev).runNext = next;
    if (next === null) this.#tail = prev;
    else linksOf(next).runPrev = prev;
    run.runPrev = null;
    run.runNext = null;
    this.#size--;
    task.book.runningCost -= task.cost;
    this.#total -= task.cost;
    return true;
  }

  /** The tasks in the order they started (copy it first to take tasks off while going through it). */
  *[Symbol.iterator](): Iterator<Task> {
    for (let task = this.#head; task !== null; task = linksOf(task).runNext) yield task;
  }
}

/** The links of a task on the list (it has a run context: only started tasks are added). */
function linksOf(task: Task): RunContext {
  return task.run!;
}

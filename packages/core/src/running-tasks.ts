import type { Task } from "./task.js";

/**
 * The tasks that hold a slot, with their cost summed per priority as they come and go (in each
 * priority's book, which the task points at), so that "how much of priority P runs here" is O(1) (the
 * wait-target controller asks at every start). A start and an end each cost one set operation and no
 * lookup by name: a permit is granted and released on every request of the HTTP adapters.
 */
export class RunningTasks extends Set<Task> {
  #total = 0;

  override add(task: Task): this {
    const before = this.size;
    super.add(task);
    if (this.size !== before) {
      task.book.runningCost += task.cost;
      this.#total += task.cost;
    }
    return this;
  }

  override delete(task: Task): boolean {
    if (!super.delete(task)) return false;
    task.book.runningCost -= task.cost;
    this.#total -= task.cost;
    return true;
  }

  override clear(): void {
    for (const task of this) task.book.runningCost -= task.cost;
    this.#total = 0;
    super.clear();
  }

  /** Cost units running on this instance, over all priorities. */
  get totalCost(): number {
    return this.#total;
  }
}

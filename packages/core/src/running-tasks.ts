import type { Task } from "./task.js";

/**
 * The tasks that hold a slot, with their cost summed per priority as they come and go, so that "how
 * much of priority P runs here" is O(1) (the wait-target controller asks at every start).
 */
export class RunningTasks extends Set<Task> {
  readonly #cost = new Map<string, number>();
  #total = 0;

  override add(task: Task): this {
    if (!this.has(task)) {
      this.#cost.set(task.priority, (this.#cost.get(task.priority) ?? 0) + task.cost);
      this.#total += task.cost;
    }
    return super.add(task);
  }

  override delete(task: Task): boolean {
    if (!super.delete(task)) return false;
    this.#cost.set(task.priority, (this.#cost.get(task.priority) ?? 0) - task.cost);
    this.#total -= task.cost;
    return true;
  }

  override clear(): void {
    this.#cost.clear();
    this.#total = 0;
    super.clear();
  }

  /** Cost units running on this instance, over all priorities. */
  get totalCost(): number {
    return this.#total;
  }

  /** Cost units of `priority` running on this instance. */
  costOf(priority: string): number {
    return this.#cost.get(priority) ?? 0;
  }
}

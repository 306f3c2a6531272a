import type { Task } from "./task.js";

/** The cost units of one priority running now (a mutable cell, so a start or an end is one map lookup). */
interface CostCell {
  units: number;
}

/**
 * The tasks that hold a slot, with their cost summed per priority as they come and go, so that "how
 * much of priority P runs here" is O(1) (the wait-target controller asks at every start). A start and
 * an end each cost one set operation and one map lookup (the priority's counter is a cell updated in
 * place): a permit is granted and released on every request of the HTTP adapters.
 */
export class RunningTasks extends Set<Task> {
  readonly #cost = new Map<string, CostCell>();
  #total = 0;

  override add(task: Task): this {
    const before = this.size;
    super.add(task);
    if (this.size !== before) {
      this.#cellOf(task.priority).units += task.cost;
      this.#total += task.cost;
    }
    return this;
  }

  override delete(task: Task): boolean {
    if (!super.delete(task)) return false;
    this.#cellOf(task.priority).units -= task.cost;
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
    return this.#cost.get(priority)?.units ?? 0;
  }

  #cellOf(priority: string): CostCell {
    let cell = this.#cost.get(priority);
    if (cell === undefined) {
      cell = { units: 0 };
      this.#cost.set(priority, cell);
    }
    return cell;
  }
}

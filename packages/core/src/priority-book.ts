import { DeadlineFifo } from "./fifo-deadlines.js";
import { PriorityStats } from "./stats.js";
import type { Task } from "./task.js";

/**
 * What a scheduler keeps for one priority name while it lives (`update()` keeps it, and adds one for a
 * new name): its counters, its running cost and its queue deadlines. Each task points at its priority's
 * book from admission on, so that queueing, starting and ending a task look nothing up by name.
 *
 * @example
 * task.book.stats.completed++;
 */
export class PriorityBook {
  readonly name: string;
  /** The priority's `queueTimeoutMs` as configured now (see {@link Reporter.setPriorities}). */
  queueTimeoutMs: number;
  readonly stats = new PriorityStats();
  /** Cost units of this priority holding a slot on this instance (kept by `RunningTasks`). */
  runningCost = 0;
  /** Its tasks' queue deadlines, in the order they were set (driven by `Deadlines`). */
  readonly queueDeadlines = new DeadlineFifo<Task>();

  constructor(name: string, queueTimeoutMs: number) {
    this.name = name;
    this.queueTimeoutMs = queueTimeoutMs;
  }
}

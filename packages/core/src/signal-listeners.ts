import type { Task } from "./task.js";

/** Tasks that share one caller signal, behind the one listener the signal gets. */
class SharedSignal implements EventListenerObject {
  readonly tasks = new Set<Task>();

  handleEvent(): void {
    for (const task of [...this.tasks]) task.handleEvent();
  }
}

/**
 * Listens to callers' signals with at most one listener per signal. A signal used by one task (the
 * common case: one request, one signal) gets the task itself as its listener; when a second task
 * arrives on the same signal, they move behind one shared listener. Adding and removing a task is O(1)
 * either way: runtimes scan a signal's listeners on every add, so one listener per task would make a
 * signal shared by n tasks cost O(n^2) (and warn past ten listeners).
 */
export class SignalListeners {
  readonly #bySignal = new WeakMap<AbortSignal, Task | SharedSignal>();

  add(signal: AbortSignal, task: Task): void {
    const current = this.#bySignal.get(signal);
    if (current === undefined) {
      this.#bySignal.set(signal, task);
      signal.addEventListener("abort", task);
    } else if (current instanceof SharedSignal) {
      current.tasks.add(task);
    } else {
      const shared = new SharedSignal();
      shared.tasks.add(current);
      shared.tasks.add(task);
      signal.removeEventListener("abort", current);
      signal.addEventListener("abort", shared);
      this.#bySignal.set(signal, shared);
    }
  }

  remove(signal: AbortSignal, task: Task): void {
    const current = this.#bySignal.get(signal);
    if (current === task) {
      this.#bySignal.delete(signal);
      signal.removeEventListener("abort", task);
    } else if (current instanceof SharedSignal && current.tasks.delete(task) && current.tasks.size === 0) {
      this.#bySignal.delete(signal);
      signal.removeEventListener("abort", current);
    }
  }
}

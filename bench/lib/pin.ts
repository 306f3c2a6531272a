// Pins a process (all its threads) to one CPU with Linux's `taskset`, so that an HTTP server and the
// load generator that drives it stop competing for the same cores: each server's requests per second
// then follows its own CPU per request instead of the scheduler's choices between two processes.
// Without `taskset`, or on a machine with a single CPU, nothing is pinned and the callers say so.

import { execFileSync } from "node:child_process";
import { cpus } from "node:os";

/**
 * Pins this process's threads (and the threads it starts later) to `cpu`; false when it cannot.
 *
 * @example
 * const pinned = pinTo(0); // the servers on CPU 0, the load process pins itself to CPU 1
 */
export function pinTo(cpu: number): boolean {
  if (cpus().length < 2) return false;
  return taskset(String(cpu));
}

/** Lets this process run on every CPU again (after {@link pinTo}). */
export function unpin(): void {
  taskset(`0-${cpus().length - 1}`); // not availableParallelism(): it reads the pinned affinity
}

function taskset(list: string): boolean {
  try {
    execFileSync("taskset", ["--all-tasks", "--cpu-list", "--pid", list, String(process.pid)], {
      stdio: "ignore",
    });
    return true;
  } catch {
    return false;
  }
}

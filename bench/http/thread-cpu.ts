// CPU time of the calling thread alone, in µs. The process's figure (`process.cpuUsage()`) also counts
// V8's helper threads (concurrent marking, parallel scavenges, compilers), whose work lands in whichever
// block of requests happens to be running and moves a per-request figure by tens of µs on Express. The
// main thread's own time, read from Linux's scheduler statistics (nanoseconds), is what a server's event
// loop spends and moves far less. Off Linux (no `/proc/thread-self`) this falls back to the process's.

import { readFileSync } from "node:fs";

const SCHEDSTAT = "/proc/thread-self/schedstat";

function fromSchedstat(): number {
  // "<ns on the CPU> <ns waiting to run> <time slices>"
  const text = readFileSync(SCHEDSTAT, "latin1");
  return Number(text.slice(0, text.indexOf(" "))) / 1000;
}

function fromProcess(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

function pick(): () => number {
  try {
    return Number.isFinite(fromSchedstat()) ? fromSchedstat : fromProcess;
  } catch {
    return fromProcess;
  }
}

/**
 * This thread's CPU time so far, in µs (the process's on systems without `/proc/thread-self/schedstat`).
 *
 * @example
 * const before = threadCpuMicros(); work(); const used = threadCpuMicros() - before;
 */
export const threadCpuMicros: () => number = pick();

/** True when `threadCpuMicros()` reads this thread's own time, false when it falls back to the process's. */
export const measuresThread: boolean = threadCpuMicros === fromSchedstat;

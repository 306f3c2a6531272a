import type { Scheduler } from "@llm-scheduler/core";

/** Timing, garbage collection and heap readings. Parts run with `--expose-gc` (see node-child.ts). */

const gcFunction = (globalThis as { gc?: () => void }).gc;

/**
 * Runs full garbage collections; throws when the process was started without `--expose-gc`. Heap
 * readings take two passes: the first can leave objects that only become unreachable once
 * finalizers have run.
 */
export function collectGarbage(passes = 1): void {
  if (gcFunction === undefined) {
    throw new Error("Expected global gc(): run this file through bench/run.ts, which passes --expose-gc");
  }
  for (let pass = 0; pass < passes; pass++) gcFunction();
}

/** Heap in use after a full collection, in bytes. */
export function heapAfterGc(): number {
  collectGarbage(2);
  return process.memoryUsage().heapUsed;
}

/** Milliseconds taken by `fn`, after a collection so that earlier garbage is not billed to it. */
export async function timeIt(fn: () => Promise<unknown> | unknown): Promise<number> {
  collectGarbage();
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * Wall-clock and CPU milliseconds taken by `fn` (CPU: this process's user and system time, gc
 * threads included), after a collection. CPU time hardly moves with other work on the machine, so
 * its ratios stay comparable on a loaded machine where wall-clock ratios do not.
 */
export async function timeAndCpu(
  fn: () => Promise<unknown> | unknown,
): Promise<{ ms: number; cpuMs: number }> {
  collectGarbage();
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  await fn();
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** A promise that never settles: the body of a task that holds its slot for the whole measurement. */
export function never(): Promise<never> {
  return new Promise(() => {});
}

/**
 * Sequential acquire + release on a free slot, `samples` times after 200 unmeasured ones: how long
 * each acquire took as the caller sees it, ms.
 */
export async function acquireTimes(scheduler: Scheduler, samples: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < samples + 200; i++) {
    const started = performance.now();
    const permit = await scheduler.acquire();
    if (i >= 200) times.push(performance.now() - started);
    permit.release();
  }
  return times;
}

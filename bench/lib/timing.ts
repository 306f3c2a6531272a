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

/** A promise that never settles: the body of a task that holds its slot for the whole measurement. */
export function never(): Promise<never> {
  return new Promise(() => {});
}

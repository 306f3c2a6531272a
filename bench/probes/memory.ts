// One memory measurement in a fresh process: heap growth per task while `size` tasks wait behind one
// blocked slot, the caller holding each task's promise. Arguments: <subject> <size> [--census]
import { createScheduler } from "@llm-scheduler/core";
import PQueue from "p-queue";
import { isInteractive, noop, TENANTS } from "../lib/contenders.js";
import { type Census, censusDiff, takeCensus } from "../lib/heap-census.js";
import type { Probe } from "../lib/node-child.js";
import { heapAfterGc, never } from "../lib/timing.js";

export const SUBJECTS = ["core", "core-mixed", "p-queue", "p-queue-priorities", "floor"] as const;
type Subject = (typeof SUBJECTS)[number];

interface Queue {
  submit(i: number): Promise<unknown>;
  waiting(): number;
}

function core(mixed: boolean, size: number): Queue {
  const scheduler = createScheduler({
    maxConcurrency: 1,
    priorities: {
      interactive: { weight: 5, queueTimeoutMs: 600_000, maxQueue: 2 * size + 1_000 },
      batch: { weight: 1, queueTimeoutMs: 600_000, maxQueue: 2 * size + 1_000 },
    },
  });
  void scheduler.run(never, { priority: "batch" });
  return {
    submit: mixed
      ? (i) =>
          scheduler.run(noop, {
            priority: isInteractive(i) ? "interactive" : "batch",
            tenant: TENANTS[i & 15]!,
          })
      : () => scheduler.run(noop, { priority: "batch" }),
    waiting: () => scheduler.metrics().queued,
  };
}

function pQueue(priorities: boolean): Queue {
  const queue = new PQueue({ concurrency: 1 });
  void queue.add(never);
  return {
    submit: priorities
      ? (i) => queue.add(noop, { priority: isInteractive(i) ? 1 : 0 })
      : () => queue.add(noop),
    waiting: () => queue.size,
  };
}

interface FloorEntry {
  readonly fn: () => Promise<void>;
  readonly resolve: (value: unknown) => void;
  /** When it was queued: what a queue timeout needs. */
  readonly enqueuedAt: number;
}

/**
 * The least a queue with priorities, queue timeouts and a promise per task can keep per waiting task:
 * two plain FIFOs (one array per priority) of records holding the function, the promise's resolving
 * function and the enqueue time, and the promise itself. No tenants, no removal, no limits.
 */
function floor(): Queue {
  const fifos: FloorEntry[][] = [[], []];
  return {
    submit: (i) =>
      new Promise((resolve) => {
        fifos[isInteractive(i) ? 0 : 1]!.push({ fn: noop, resolve, enqueuedAt: performance.now() });
      }),
    waiting: () => fifos[0]!.length + fifos[1]!.length,
  };
}

export const main: Probe = async (args) => {
  const [subject, sizeText] = args as [Subject, string];
  const size = Number(sizeText);
  const census = args.includes("--census");
  if (!SUBJECTS.includes(subject) || !(size > 0))
    throw new Error(`Usage: memory.ts <${SUBJECTS.join("|")}> <size>`);

  const queue =
    subject === "core" || subject === "core-mixed"
      ? core(subject === "core-mixed", size)
      : subject === "floor"
        ? floor()
        : pQueue(subject === "p-queue-priorities");
  // Warm up the code paths, so that compiled code and inline caches are not billed to the tasks.
  const warm = new Array<Promise<unknown>>(1_000);
  for (let i = 0; i < 1_000; i++) warm[i] = queue.submit(i);
  // The array that holds the callers' promises exists before the first reading: its slots are the
  // caller's, the promises in them are the library's.
  const held = new Array<Promise<unknown> | null>(size).fill(null);
  await new Promise((resolve) => setTimeout(resolve, 20));
  // A census allocates a table of its own. The first census's table is on the heap while the before
  // census runs and is dropped before the after census, where the before table takes its place.
  let scratch: Census | null = census ? takeCensus() : null;
  const scratchKinds = scratch?.size;
  const before: Census | null = census ? takeCensus() : null;
  const heapBefore = heapAfterGc();
  for (let i = 0; i < size; i++) held[i] = queue.submit(i);
  const heapAfter = heapAfterGc();
  scratch = null;
  const after: Census | null = census ? takeCensus() : null;
  // Reading the queue after the second reading keeps it (and what it holds) reachable until then.
  const waiting = queue.waiting();
  if (waiting !== size + warm.length)
    throw new Error(`Expected ${size + warm.length} waiting tasks, found ${waiting}`);
  return {
    subject,
    size,
    bytesPerTask: (heapAfter - heapBefore) / size,
    heapBefore,
    heapAfter,
    held: held.length,
    scratchKinds,
    census: before !== null && after !== null ? censusDiff(before, after, size) : null,
  };
};

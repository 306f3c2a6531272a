// The libraries under test, set up the same way in every part: concurrency 8, two priorities in the
// proportion 1 interactive : 3 batch, 16 tenants. Each returns `submit(i)`, which queues task number i.
import { type Clock, createScheduler, type Scheduler } from "@llm-scheduler/core";
import Bottleneck from "bottleneck";
import PQueue from "p-queue";
import { FloorQueue } from "./floor-queue.js";

export const CONCURRENCY = 8;
export const TENANTS = Array.from({ length: 16 }, (_, index) => `tenant-${index}`);

/** A task that does nothing and returns a settled promise, as an upstream call that answers at once. */
export const noop = (): Promise<void> => Promise.resolve();

export const isInteractive = (i: number): boolean => (i & 3) === 0;

/** The core with the features a gateway has on: two priorities, tenants, queue timeouts. */
export function coreScheduler(maxQueue: number, clock?: Clock): Scheduler {
  return createScheduler({
    maxConcurrency: CONCURRENCY,
    priorities: {
      interactive: { weight: 5, reserved: 1, queueTimeoutMs: 600_000, maxQueue },
      batch: { weight: 1, queueTimeoutMs: 600_000, maxQueue },
    },
    ...(clock === undefined ? {} : { clock }),
  });
}

export type Submit = (i: number) => Promise<unknown>;

export interface Contender {
  readonly name: string;
  /** A fresh instance; `close` frees its timers. */
  create(size: number): { submit: Submit; close(): Promise<void> | void };
}

export const core: Contender = {
  name: "llm-scheduler",
  create(size) {
    const scheduler = coreScheduler(size);
    return {
      submit: (i) =>
        scheduler.run(noop, {
          priority: isInteractive(i) ? "interactive" : "batch",
          tenant: TENANTS[i & 15]!,
        }),
      close: () => scheduler.close(),
    };
  },
};

/**
 * The floor: the least code with the same features on (see floor-queue.ts), set up like `core`. What
 * any code with these features costs in this runtime; llm-scheduler's distance to it is what its own
 * structure costs.
 */
export const floor: Contender = {
  name: "floor",
  create() {
    const queue = new FloorQueue({
      concurrency: CONCURRENCY,
      priorities: [
        { weight: 5, reserved: 1, queueTimeoutMs: 600_000 },
        { weight: 1, reserved: 0, queueTimeoutMs: 600_000 },
      ],
    });
    return {
      submit: (i) => queue.run(noop, isInteractive(i) ? 0 : 1, TENANTS[i & 15]!),
      close: () => queue.close(),
    };
  },
};

export const pQueuePlain: Contender = {
  name: "p-queue",
  create() {
    const queue = new PQueue({ concurrency: CONCURRENCY });
    return { submit: () => queue.add(noop), close: () => queue.clear() };
  },
};

export const pQueuePriorities: Contender = {
  name: "p-queue, priorities",
  create() {
    const queue = new PQueue({ concurrency: CONCURRENCY });
    return {
      submit: (i) => queue.add(noop, { priority: isInteractive(i) ? 1 : 0 }),
      close: () => queue.clear(),
    };
  },
};

export const bottleneck: Contender = {
  name: "bottleneck, priorities",
  create() {
    const limiter = new Bottleneck({ maxConcurrent: CONCURRENCY });
    return {
      // Lower numbers go first in Bottleneck; 5 is its default.
      submit: (i) => limiter.schedule({ priority: isInteractive(i) ? 4 : 6 }, noop),
      close: () => limiter.stop({ dropWaitingJobs: false }),
    };
  },
};

/** Submits `size` tasks at once and waits for all of them; throws if any failed. */
export async function submitAndAwait(contender: Contender, size: number): Promise<void> {
  const instance = contender.create(size);
  await submitAllAndAwait(instance, size);
  await instance.close();
}

/** Submits `size` tasks at once to an instance that already exists and waits for all of them. */
export async function submitAllAndAwait(instance: { submit: Submit }, size: number): Promise<void> {
  const pending = new Array<Promise<unknown>>(size);
  for (let i = 0; i < size; i++) pending[i] = instance.submit(i);
  await Promise.all(pending);
}

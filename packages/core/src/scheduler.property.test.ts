import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DelayedStore } from "../test/delayed-store.js";
import { flush } from "../test/harness.js";
import { VirtualClock } from "./clock.js";
import { createScheduler } from "./scheduler.js";

type Op =
  | {
      kind: "submit";
      priority: "hi" | "lo";
      tenant: number;
      cost: number;
      /** none, its own signal, or one signal shared with the other tasks of its tenant */
      signal: "none" | "own" | "shared";
      timeoutMs: number | undefined;
      mode: "async" | "throw" | "sync" | "permit";
    }
  | { kind: "abort"; index: number }
  | { kind: "settle"; index: number; ok: boolean }
  | { kind: "advance"; ms: number }
  | { kind: "update"; maxConcurrency: number; loWeight: number }
  | { kind: "close"; drain: boolean };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("submit" as const),
      priority: fc.constantFrom("hi" as const, "lo" as const),
      tenant: fc.integer({ min: 0, max: 2 }),
      cost: fc.integer({ min: 1, max: 2 }),
      signal: fc.constantFrom("none" as const, "own" as const, "shared" as const),
      timeoutMs: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
      mode: fc.constantFrom(
        "async" as const,
        "async" as const,
        "throw" as const,
        "sync" as const,
        "permit" as const,
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("abort" as const), index: fc.nat(40) }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("settle" as const), index: fc.nat(40), ok: fc.boolean() }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 400 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("update" as const),
      maxConcurrency: fc.integer({ min: 2, max: 4 }),
      loWeight: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("close" as const), drain: fc.boolean() }) },
);

interface Tracked {
  controller: AbortController;
  settleCount: number;
  rejected: boolean;
  started: boolean;
  /** The function (or permit holder) is running and its slot counts. */
  holding: boolean;
  cost: number;
  finish: ((ok: boolean) => void) | null;
}

async function runScenario(ops: Op[], remote: boolean): Promise<void> {
  const clock = new VirtualClock();
  const scheduler = createScheduler({
    clock,
    store: remote ? new DelayedStore() : undefined,
    maxConcurrency: 3,
    abortGraceMs: 200,
    priorities: {
      hi: { weight: 3, reserved: 1, queueTimeoutMs: 250, maxQueue: 6 },
      lo: { weight: 1, maxConcurrency: 2, queueTimeoutMs: 500, maxQueue: 8, maxWaitMs: 150 },
    },
  });
  const tasks: Tracked[] = [];
  const problems: string[] = [];
  const inFlightCost = (): number => tasks.reduce((sum, t) => sum + (t.holding ? t.cost : 0), 0);
  scheduler.on("overrun", (event) => {
    tasks[Number(event.id)]!.holding = false;
  });
  scheduler.on("started", (event) => {
    const task = tasks[Number(event.id)]!;
    if (task.rejected) problems.push(`task ${event.id} started after it was rejected`);
    task.started = true;
    task.holding = true;
    const limit = scheduler.options.maxConcurrency;
    if (inFlightCost() > limit) problems.push(`in flight ${inFlightCost()} > limit ${limit}`);
  });
  let closing: Promise<void> | null = null;
  const sharedByTenant = [new AbortController(), new AbortController(), new AbortController()];

  for (const step of ops) {
    if (step.kind === "submit") {
      const index = tasks.length;
      const task: Tracked = {
        controller: step.signal === "shared" ? sharedByTenant[step.tenant]! : new AbortController(),
        settleCount: 0,
        rejected: false,
        started: false,
        holding: false,
        cost: step.cost,
        finish: null,
      };
      tasks.push(task);
      const options = {
        priority: step.priority,
        tenant: `t${step.tenant}`,
        cost: step.cost,
        id: String(index),
        signal: step.signal === "none" ? undefined : task.controller.signal,
        timeoutMs: step.timeoutMs,
      };
      const settled = (ok: boolean) => (value: unknown) => {
        task.settleCount++;
        if (!ok && !task.started) task.rejected = true;
        void value;
      };
      if (step.mode === "permit") {
        scheduler.acquire(options).then((permit) => {
          settled(true)(permit);
          if (!permit.held) return;
          task.finish = (ok) => {
            task.holding = false;
            permit.release(ok ? undefined : new Error("failed"));
          };
        }, settled(false));
      } else {
        scheduler
          .run(({ signal }) => {
            if (step.mode === "throw") {
              task.holding = false;
              throw new Error("sync throw");
            }
            if (step.mode === "sync") {
              task.holding = false;
              return "sync";
            }
            return new Promise((resolve, reject) => {
              task.finish = (ok) => {
                task.holding = false;
                ok ? resolve("ok") : reject(new Error("failed"));
              };
              void signal;
            });
          }, options)
          .then(settled(true), settled(false));
      }
    } else if (step.kind === "abort") {
      tasks[step.index]?.controller.abort(new Error("caller gone"));
    } else if (step.kind === "settle") {
      const task = tasks[step.index];
      if (task?.finish) {
        const finish = task.finish;
        task.finish = null;
        finish(step.ok);
      }
    } else if (step.kind === "advance") {
      clock.advance(step.ms);
    } else if (step.kind === "update") {
      await scheduler.update({
        maxConcurrency: step.maxConcurrency,
        priorities: { lo: { weight: step.loWeight, maxConcurrency: 2 } },
      });
    } else if (closing === null) {
      closing = scheduler.close({ drain: step.drain, timeoutMs: 300 });
    }
    await flush(remote ? 200 : 6);
    const metrics = scheduler.metrics();
    if (metrics.running !== inFlightCost())
      problems.push(`metrics.running ${metrics.running} != held ${inFlightCost()}`);
    const waiting = tasks.filter((t) => !t.started && t.settleCount === 0).length;
    if (metrics.queued !== waiting) problems.push(`metrics.queued ${metrics.queued} != waiting ${waiting}`);
    if (problems.length > 0) break;
  }

  // Let everything end: finish whatever runs, let timers fire, close.
  closing ??= scheduler.close({ drain: false, timeoutMs: 300 });
  for (let round = 0; round < 20; round++) {
    for (const task of tasks)
      if (task.finish) {
        const finish = task.finish;
        task.finish = null;
        finish(true);
      }
    clock.advance(300);
    await flush(remote ? 200 : 6);
  }
  await closing;
  expect(problems).toEqual([]);
  for (const [index, task] of tasks.entries()) {
    expect(task.settleCount, `task ${index} settles exactly once`).toBe(1);
  }
  expect(scheduler.metrics().running).toBe(0);
  expect(scheduler.metrics().queued).toBe(0);
  expect(clock.pendingTimers).toBe(0);
}

describe("random interleavings", () => {
  const ops = fc.array(op, { minLength: 1, maxLength: 60 });

  it("keep every invariant: limits, exactly-once settlement, honest counts, no timers after close", async () => {
    await fc.assert(
      fc.asyncProperty(ops, (steps) => runScenario(steps, false)),
      { numRuns: 1_500 },
    );
  }, 120_000);

  it("keep them with a store that answers asynchronously, as a remote one does", async () => {
    await fc.assert(
      fc.asyncProperty(ops, (steps) => runScenario(steps, true)),
      { numRuns: 1_000 },
    );
  }, 120_000);
});

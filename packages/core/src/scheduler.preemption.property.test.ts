import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { flush } from "../test/harness.js";
import { VirtualClock } from "./clock.js";
import { createScheduler } from "./scheduler.js";

type Op =
  | { kind: "submit"; priority: "chat" | "normal" | "batch"; stopsAfterMs: number | null }
  | { kind: "settle"; index: number; ok: boolean }
  | { kind: "abort"; index: number }
  | { kind: "advance"; ms: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 7,
    arbitrary: fc.record({
      kind: fc.constant("submit" as const),
      priority: fc.constantFrom("chat" as const, "normal" as const, "batch" as const, "batch" as const),
      // how long the function takes to stop once its signal fires; null: it ignores the signal
      stopsAfterMs: fc.option(fc.integer({ min: 0, max: 400 }), { nil: null }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("settle" as const), index: fc.nat(30), ok: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("abort" as const), index: fc.nat(30) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 300 }) }),
  },
);

const LIMIT = 3;
const MAX_PER_TASK = 2;
const GRACE_MS = 250;
/** Over all runs: the scenarios did preempt (the property is not vacuous). */
const seen = { preemptions: 0 };

interface Tracked {
  readonly id: string;
  readonly controller: AbortController;
  settled: number;
  ok: boolean | null;
  /** A run was ended with a failure by the scenario (not by its signal). */
  failedOnPurpose: boolean;
  /** The current run's settle function, while a run is going. */
  finish: ((ok: boolean) => void) | null;
}

async function runScenario(ops: Op[]): Promise<void> {
  const clock = new VirtualClock();
  const scheduler = createScheduler({
    clock,
    maxConcurrency: LIMIT,
    abortGraceMs: GRACE_MS,
    priorities: {
      chat: { weight: 5, preempts: ["normal", "batch"] },
      normal: { weight: 2, preempts: ["batch"], preemptible: { maxPerTask: MAX_PER_TASK } },
      batch: { weight: 1, queueTimeoutMs: 3_600_000, preemptible: { maxPerTask: MAX_PER_TASK } },
    },
  });
  // Runs whose slot counts: started, not settled, not freed by the grace bound (an overrun).
  const counted = new Map<string, number>();
  let inFlight = 0;
  let peak = 0;
  const preemptions = new Map<string, number>();
  scheduler.on("started", (event) => {
    counted.set(event.id, (counted.get(event.id) ?? 0) + 1);
    inFlight++;
    peak = Math.max(peak, inFlight);
  });
  scheduler.on("overrun", (event) => {
    counted.set(event.id, counted.get(event.id)! - 1);
    inFlight--;
  });
  scheduler.on("preempted", (event) => {
    preemptions.set(event.id, (preemptions.get(event.id) ?? 0) + 1);
    seen.preemptions++;
  });
  const tasks: Tracked[] = [];

  const submit = (priority: string, stopsAfterMs: number | null): void => {
    const task: Tracked = {
      id: `t${tasks.length}`,
      controller: new AbortController(),
      settled: 0,
      ok: null,
      failedOnPurpose: false,
      finish: null,
    };
    tasks.push(task);
    const promise = scheduler.run(
      ({ signal }) =>
        new Promise((resolve, reject) => {
          let done = false;
          const finish = (ok: boolean): void => {
            if (done) return;
            done = true;
            if (task.finish === finish) task.finish = null;
            // The slot stops counting when the function settles, unless the grace bound freed it already.
            if (counted.get(task.id)! > 0) {
              counted.set(task.id, counted.get(task.id)! - 1);
              inFlight--;
            }
            if (ok) resolve(task.id);
            else reject(new Error("failed"));
          };
          task.finish = finish;
          if (stopsAfterMs !== null)
            signal.addEventListener("abort", () => clock.setTimer(() => finish(false), stopsAfterMs));
        }),
      { priority, id: task.id, signal: task.controller.signal },
    );
    promise.then(
      () => {
        task.settled++;
        task.ok = true;
      },
      () => {
        task.settled++;
        task.ok = false;
      },
    );
  };

  const check = (): void => {
    expect(peak).toBeLessThanOrEqual(LIMIT);
    expect(scheduler.metrics().running).toBeLessThanOrEqual(LIMIT);
    for (const count of preemptions.values()) expect(count).toBeLessThanOrEqual(MAX_PER_TASK);
    for (const task of tasks) expect(task.settled).toBeLessThanOrEqual(1);
  };

  for (const step of ops) {
    if (step.kind === "submit") submit(step.priority, step.stopsAfterMs);
    else if (step.kind === "settle") {
      const task = tasks[step.index % Math.max(1, tasks.length)];
      if (task?.finish) {
        task.failedOnPurpose ||= !step.ok;
        task.finish(step.ok);
      }
    } else if (step.kind === "abort") tasks[step.index % Math.max(1, tasks.length)]?.controller.abort();
    else clock.advance(step.ms);
    await flush();
    check();
  }
  // Wind down: every run ends well, time moves on, until nothing is left.
  let idle = false;
  void scheduler.onIdle().then(() => {
    idle = true;
  });
  for (let round = 0; round < 200 && !idle; round++) {
    for (const task of tasks) task.finish?.(true);
    clock.advance(GRACE_MS);
    await flush();
    check();
  }
  for (const task of tasks) {
    expect(task.settled).toBe(1);
    // A task whose caller did not abort completes, however often it was preempted.
    if (!task.controller.signal.aborted && !task.failedOnPurpose) expect(task.ok).toBe(true);
  }
  expect(idle).toBe(true);
  expect(scheduler.metrics()).toMatchObject({ running: 0, queued: 0 });
  await scheduler.close();
}

describe("preemption (property)", () => {
  it("settles every task once, never exceeds the limit while victims wind down, respects maxPerTask", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => runScenario(ops)),
      { numRuns: 200 },
    );
    expect(seen.preemptions).toBeGreaterThan(30);
  });
});

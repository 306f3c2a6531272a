import fc from "fast-check";
import { expect } from "vitest";
import { VirtualClock } from "../src/clock.js";
import { createScheduler, type Scheduler, type SchedulerOptions } from "../src/index.js";
import { flush } from "./harness.js";

/**
 * The preemption properties, written once and run against every store: on the memory store with one
 * scheduler (`memoryWorld`), and on a shared store with several instances (the Redis tests build their
 * own world). A scenario sends each submission to instance `on % instances`.
 */
export interface PreemptionWorld {
  /** The instances, all on the scenario's virtual clock. */
  readonly schedulers: readonly Scheduler[];
  /**
   * True when events are heard in the order they happen (one instance). Across instances they are
   * not: a start made on instance A by the same script as one on instance B may be heard first.
   */
  readonly ordered: boolean;
  /**
   * Lets what the last step set off play out: until `done()` holds when given (a shared store waits
   * for its messages, within a generous bound), otherwise until nothing more happens.
   */
  settle(done?: () => boolean): Promise<void>;
  /** Closes every instance at once (`timeoutMs: 0`: what still runs is stopped). */
  close(): Promise<void>;
}

/** Builds a world of schedulers with `options` (which carry the scenario's clock). */
export type WorldOf = (options: SchedulerOptions) => PreemptionWorld | Promise<PreemptionWorld>;

/** One scheduler on the memory store; settling is letting promise callbacks run. */
export const memoryWorld: WorldOf = (options) => {
  const scheduler = createScheduler(options);
  return {
    schedulers: [scheduler],
    ordered: true,
    settle: () => flush(),
    close: () => scheduler.close({ timeoutMs: 0 }),
  };
};

/** Over all runs of a property: the scenarios did preempt (the property is not vacuous). */
export interface Seen {
  preemptions: number;
}

export type SettleOp =
  | { kind: "submit"; on: number; priority: "chat" | "normal" | "batch"; stopsAfterMs: number | null }
  | { kind: "settle"; index: number; ok: boolean }
  | { kind: "abort"; index: number }
  | { kind: "advance"; ms: number };

export const settleOp: fc.Arbitrary<SettleOp> = fc.oneof(
  {
    weight: 7,
    arbitrary: fc.record({
      kind: fc.constant("submit" as const),
      on: fc.nat(1),
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

/**
 * Three priorities (chat preempts normal and batch, normal preempts batch), victims that stop late or
 * never, callers that abort: every task settles once, the limit holds while victims wind down (a slot
 * counts until its function settles or the grace bound frees it), no task is preempted more than
 * `maxPerTask` times, and a task whose caller did not abort completes, however often it was preempted.
 */
export async function settlesOnceScenario(ops: SettleOp[], worldOf: WorldOf, seen: Seen): Promise<void> {
  const clock = new VirtualClock();
  const world = await worldOf({
    clock,
    maxConcurrency: LIMIT,
    abortGraceMs: GRACE_MS,
    priorities: {
      chat: { weight: 5, preempts: ["normal", "batch"] },
      normal: { weight: 2, preempts: ["batch"], preemptible: { maxPerTask: MAX_PER_TASK } },
      batch: { weight: 1, queueTimeoutMs: 3_600_000, preemptible: { maxPerTask: MAX_PER_TASK } },
    },
  });
  const { schedulers } = world;
  // Runs whose slot counts: started, not settled, not freed by the grace bound (an overrun).
  const counted = new Map<string, number>();
  let inFlight = 0;
  let peak = 0;
  const preemptions = new Map<string, number>();
  for (const scheduler of schedulers) {
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
  }
  const tasks: Tracked[] = [];

  const submit = (on: number, priority: string, stopsAfterMs: number | null): void => {
    const task: Tracked = {
      id: `t${tasks.length}`,
      controller: new AbortController(),
      settled: 0,
      ok: null,
      failedOnPurpose: false,
      finish: null,
    };
    tasks.push(task);
    const promise = schedulers[on % schedulers.length]!.run(
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
    for (const scheduler of schedulers) expect(scheduler.metrics().running).toBeLessThanOrEqual(LIMIT);
    for (const count of preemptions.values()) expect(count).toBeLessThanOrEqual(MAX_PER_TASK);
    for (const task of tasks) expect(task.settled).toBeLessThanOrEqual(1);
  };

  for (const step of ops) {
    if (step.kind === "submit") submit(step.on, step.priority, step.stopsAfterMs);
    else if (step.kind === "settle") {
      const task = tasks[step.index % Math.max(1, tasks.length)];
      if (task?.finish) {
        task.failedOnPurpose ||= !step.ok;
        task.finish(step.ok);
      }
    } else if (step.kind === "abort") tasks[step.index % Math.max(1, tasks.length)]?.controller.abort();
    else clock.advance(step.ms);
    await world.settle();
    check();
  }
  // Wind down: every run ends well, time moves on, until nothing is left.
  let idle = false;
  void Promise.all(schedulers.map((scheduler) => scheduler.onIdle())).then(() => {
    idle = true;
  });
  for (let round = 0; round < 200 && !idle; round++) {
    for (const task of tasks) task.finish?.(true);
    clock.advance(GRACE_MS);
    await world.settle();
    check();
  }
  for (const task of tasks) {
    expect(task.settled).toBe(1);
    // A task whose caller did not abort completes, however often it was preempted.
    if (!task.controller.signal.aborted && !task.failedOnPurpose) expect(task.ok).toBe(true);
  }
  expect(idle).toBe(true);
  const empty = () => schedulers.every((s) => s.metrics().running === 0 && s.metrics().queued === 0);
  await world.settle(empty);
  for (const scheduler of schedulers) expect(scheduler.metrics()).toMatchObject({ running: 0, queued: 0 });
  await world.close();
}

export type FitOp =
  | { kind: "submit"; on: number; priority: "chat" | "batch"; tenant: "a" | "b" | "c"; tokens: number }
  | { kind: "settle"; index: number }
  | { kind: "advance"; ms: number };

export const fitOp: fc.Arbitrary<FitOp> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("submit" as const),
      on: fc.nat(1),
      priority: fc.constantFrom("chat" as const, "batch" as const, "batch" as const),
      tenant: fc.constantFrom("a" as const, "b" as const, "c" as const),
      tokens: fc.integer({ min: 0, max: 600 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("settle" as const), index: fc.nat(40) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 500 }) }),
  },
);

/**
 * Tenants with a cap of one and two, a token budget, polite victims (they stop as soon as their signal
 * fires): every preemption must hand its slot to a chat arrival, so the next start after it is chat's
 * (in an unordered world, a chat start must follow within the same step), and one victim at a time.
 */
export async function fitScenario(ops: FitOp[], worldOf: WorldOf, seen: Seen): Promise<void> {
  const clock = new VirtualClock();
  const world = await worldOf({
    clock,
    maxConcurrency: 3,
    maxTokensInFlight: 1_000,
    tenants: { a: { maxConcurrency: 1 }, b: { maxConcurrency: 2 } },
    priorities: {
      chat: { weight: 5, preempts: ["batch"] },
      batch: { weight: 1, queueTimeoutMs: 3_600_000, preemptible: { maxPerTask: 3 } },
    },
  });
  const { schedulers } = world;
  /** Priorities of the starts since the last preemption, while one is open. */
  let open: string[] | null = null;
  for (const scheduler of schedulers) {
    scheduler.on("preempted", () => {
      expect(open).toBeNull(); // one victim at a time, each answered by a start before the next
      open = [];
      seen.preemptions++;
    });
    scheduler.on("started", (event) => {
      if (open === null) return;
      if (world.ordered) expect(event.priority).toBe("chat");
      if (event.priority === "chat") open = null;
      else open.push(event.priority); // made with the chat start, heard before it
    });
  }
  const finishers: Array<(() => void) | null> = [];
  const submit = ({ on, priority, tenant, tokens }: Extract<FitOp, { kind: "submit" }>): void => {
    const index = finishers.length;
    finishers.push(null);
    schedulers[on % schedulers.length]!.run(
      ({ signal }) =>
        new Promise<void>((resolve, reject) => {
          finishers[index] = resolve;
          signal.addEventListener("abort", () => reject(signal.reason));
        }),
      { priority, tenant, tokens },
    ).catch(() => {});
  };
  for (const step of ops) {
    if (step.kind === "submit") submit(step);
    else if (step.kind === "settle") finishers[step.index % Math.max(1, finishers.length)]?.();
    else clock.advance(step.ms);
    await world.settle(() => open === null);
    expect(open).toBeNull();
  }
  for (const finish of finishers) finish?.();
  await world.close();
}

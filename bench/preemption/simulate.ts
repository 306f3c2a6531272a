// A flood of ten-minute batch generations and a trickle of chat requests, driven through the real core
// in virtual time, with and without preemption (and with no reserved slot either way).
import { createScheduler, type PriorityOptions, VirtualClock } from "@llm-scheduler/core";

export interface FloodScenario {
  readonly maxConcurrency: number;
  /** Batch tasks, all submitted at time 0. */
  readonly batchTasks: number;
  /** How long one batch generation holds its slot when nothing stops it. */
  readonly batchMs: number;
  /** Mean gap between chat arrivals (exponential gaps, seeded), and how long one chat holds its slot. */
  readonly chatGapMs: number;
  readonly chatMs: number;
  /** How long an upstream call takes to stop once its signal fires (the request being cancelled). */
  readonly cancelMs: number;
  readonly maxPerTask: number;
  readonly seed: number;
}

export interface FloodRun {
  readonly chatWaitsMs: readonly number[];
  /** When the last batch task completed. */
  readonly batchMakespanMs: number;
  readonly batchCompleted: number;
  readonly batchFailed: number;
  readonly preemptions: number;
  /** The most preemptions any one task had. */
  readonly maxPreemptionsPerTask: number;
  /** Run time thrown away by preemptions. */
  readonly wastedMs: number;
  /** Most upstream calls in flight at once, counted until each really ended (cancelled ones included). */
  readonly peakRunning: number;
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A small seeded generator (mulberry32), so both runs see the same chat arrivals. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Upstream calls in flight, counted from their start to their real end (a cancelled one included). */
class Upstream {
  inFlight = 0;
  peak = 0;
  constructor(readonly clock: VirtualClock) {}

  /** Holds a slot for `ms` of virtual time, or stops `cancelMs` after its signal fires. */
  call(signal: AbortSignal, ms: number, cancelMs: number): Promise<void> {
    this.peak = Math.max(this.peak, ++this.inFlight);
    return new Promise((resolve, reject) => {
      const done = this.clock.setTimer(() => {
        this.inFlight--;
        resolve();
      }, ms);
      signal.addEventListener("abort", () => {
        this.clock.clearTimer(done);
        this.clock.setTimer(() => {
          this.inFlight--;
          reject(signal.reason);
        }, cancelMs);
      });
    });
  }
}

export async function simulateFlood(scenario: FloodScenario, preempt: boolean): Promise<FloodRun> {
  const clock = new VirtualClock(0);
  const batch: PriorityOptions = {
    weight: 1,
    queueTimeoutMs: Number.POSITIVE_INFINITY,
    maxQueue: Number.POSITIVE_INFINITY,
    ...(preempt && { preemptible: { maxPerTask: scenario.maxPerTask } }),
  };
  const scheduler = createScheduler({
    clock,
    maxConcurrency: scenario.maxConcurrency,
    abortGraceMs: 5_000,
    priorities: {
      interactive: {
        weight: 5,
        queueTimeoutMs: Number.POSITIVE_INFINITY,
        ...(preempt && { preempts: ["batch"] }),
      },
      batch,
    },
  });
  const upstream = new Upstream(clock);
  const chatWaitsMs: number[] = [];
  const perTask = new Map<string, number>();
  scheduler.on("started", (event) => {
    if (event.priority === "interactive") chatWaitsMs.push(event.waitMs);
  });
  scheduler.on("preempted", (event) => perTask.set(event.id, (perTask.get(event.id) ?? 0) + 1));
  let batchCompleted = 0;
  let batchFailed = 0;
  let batchMakespanMs = 0;
  for (let i = 0; i < scenario.batchTasks; i++) {
    scheduler
      .run(({ signal }) => upstream.call(signal, scenario.batchMs, scenario.cancelMs), {
        priority: "batch",
        id: `batch-${i}`,
      })
      .then(
        () => {
          batchCompleted++;
          batchMakespanMs = clock.now();
        },
        () => {
          batchFailed++;
        },
      );
  }
  // Chat arrives while batch work is left: exponential gaps from a seeded generator.
  const next = random(scenario.seed);
  const floodEndsMs = (Math.ceil(scenario.batchTasks / scenario.maxConcurrency) - 1) * scenario.batchMs;
  let chats = 0;
  for (let at = 0; ; ) {
    at += -Math.log(1 - next()) * scenario.chatGapMs;
    if (at >= floodEndsMs) break;
    const id = `chat-${chats++}`;
    clock.setTimer(() => {
      void scheduler.run(({ signal }) => upstream.call(signal, scenario.chatMs, scenario.cancelMs), {
        priority: "interactive",
        id,
      });
    }, at);
  }
  while (batchCompleted + batchFailed < scenario.batchTasks) {
    const due = clock.nextTimerAt();
    if (due === undefined) break;
    clock.advanceTo(due);
    await settle();
  }
  const metrics = scheduler.metrics().priorities.batch!;
  await scheduler.close({ timeoutMs: 0 });
  return {
    chatWaitsMs,
    batchMakespanMs,
    batchCompleted,
    batchFailed,
    preemptions: metrics.preempted,
    maxPreemptionsPerTask: Math.max(0, ...perTask.values()),
    wastedMs: metrics.preemptedRunMs,
    peakRunning: upstream.peak,
  };
}

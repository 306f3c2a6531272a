// Scale measurements, each in a fresh process (see probe.ts). Arguments:
//   time <subject> <runs> <size...>   submit N tasks and await all, at least `runs` times per size
//   cancel <subject> <size>           N queued tasks, each with its own signal, all aborted
//   shared <subject> <size...>        N queued tasks sharing one signal, aborted once
//   timeouts <size>                   N queue timeouts firing at once (core, virtual clock)
import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import PQueue from "p-queue";
import {
  type Contender,
  core,
  floor,
  noop,
  pQueuePlain,
  pQueuePriorities,
  submitAndAwait,
} from "../lib/contenders.js";
import type { Probe } from "../lib/node-child.js";
import { collectGarbage, never, timeIt } from "../lib/timing.js";

const contenders: Record<string, Contender> = {
  core,
  floor,
  "p-queue": pQueuePlain,
  "p-queue-priorities": pQueuePriorities,
};

/** A queue with its one slot taken for good, so that everything submitted waits. */
function blocked(subject: string, size: number): (signal: AbortSignal) => Promise<unknown> {
  if (subject === "core") {
    const scheduler = createScheduler({
      maxConcurrency: 1,
      priorities: { batch: { queueTimeoutMs: 600_000, maxQueue: size } },
    });
    void scheduler.run(never);
    return (signal) => scheduler.run(noop, { signal });
  }
  const queue = new PQueue({ concurrency: 1 });
  void queue.add(never);
  return (signal) => queue.add(noop, { signal });
}

/**
 * Sizes interleaved: round r times every size that still has runs left (`runsFor`), smallest first,
 * so that a burst of load from outside lands on all sizes alike.
 */
async function time(subject: string, runs: number, sizes: number[]): Promise<Record<number, number[]>> {
  const contender = contenders[subject];
  if (contender === undefined) throw new Error(`Unknown subject ${subject}`);
  // Warm-up, so that the first size does not pay for compilation.
  for (let i = 0; i < Math.min(3, runs); i++)
    await submitAndAwait(contender, Math.min(10_000, Math.max(...sizes)));
  const runsFor = (size: number): number => Math.max(runs, Math.min(4 * runs, Math.round(1e6 / size / 10)));
  const times: Record<number, number[]> = Object.fromEntries(sizes.map((size) => [size, []]));
  const rounds = Math.max(...sizes.map(runsFor));
  for (let round = 0; round < rounds; round++) {
    for (const size of sizes) {
      if (round < runsFor(size)) times[size]!.push(await timeIt(() => submitAndAwait(contender, size)));
    }
  }
  return times;
}

/** Each task has its own controller; the signals exist before timing starts (Node makes them lazily). */
async function cancelEach(subject: string, size: number) {
  const reason = new Error("cancelled");
  const controllers = Array.from({ length: size }, () => new AbortController());
  const signals = controllers.map((controller) => controller.signal);
  // What Node itself charges: one listener per signal, then every signal aborted.
  const bare = Array.from({ length: size }, () => new AbortController());
  const bareSignals = bare.map((controller) => controller.signal);
  const listener = (): void => {};
  const baselineMs = await timeIt(() => {
    for (const signal of bareSignals) signal.addEventListener("abort", listener, { once: true });
    for (const controller of bare) controller.abort(reason);
  });
  const submit = blocked(subject, size);
  let pending: Array<Promise<unknown>> = [];
  const queueMs = await timeIt(() => {
    pending = signals.map((signal) => submit(signal).catch(() => undefined));
  });
  const cancelMs = await timeIt(async () => {
    for (const controller of controllers) controller.abort(reason);
    await Promise.all(pending);
  });
  return { queueMs, cancelMs, baselineMs };
}

async function cancelShared(subject: string, sizes: number[]) {
  const results: Record<number, { queueMs: number; cancelMs: number }> = {};
  for (const size of sizes) results[size] = await cancelSharedOnce(subject, size);
  return results;
}

async function cancelSharedOnce(subject: string, size: number) {
  const controller = new AbortController();
  const submit = blocked(subject, size);
  let pending: Array<Promise<unknown>> = [];
  const queueMs = await timeIt(() => {
    pending = Array.from({ length: size }, () => submit(controller.signal).catch(() => undefined));
  });
  const cancelMs = await timeIt(async () => {
    controller.abort(new Error("cancelled"));
    await Promise.all(pending);
  });
  return { queueMs, cancelMs };
}

async function timeouts(size: number) {
  const clock = new VirtualClock(1_000);
  const scheduler = createScheduler({
    clock,
    maxConcurrency: 1,
    priorities: { batch: { queueTimeoutMs: 1_000, maxQueue: size } },
  });
  void scheduler.run(never);
  const pending = Array.from({ length: size }, () =>
    scheduler.run(noop).catch((error: { code?: string }) => error.code),
  );
  collectGarbage();
  const fireMs = await timeIt(async () => {
    clock.advance(1_000);
    const codes = await Promise.all(pending);
    const timedOut = codes.filter((code) => code === "QUEUE_TIMEOUT").length;
    if (timedOut !== size) throw new Error(`Expected ${size} queue timeouts, got ${timedOut}`);
  });
  return { fireMs };
}

export const main: Probe = async ([mode, ...rest]) => {
  if (mode === "time") {
    const [subject, runs, ...sizes] = rest;
    return time(subject!, Number(runs), sizes.map(Number));
  }
  if (mode === "cancel") return cancelEach(rest[0]!, Number(rest[1]));
  if (mode === "shared") return cancelShared(rest[0]!, rest.slice(1).map(Number));
  if (mode === "timeouts") return timeouts(Number(rest[0]));
  throw new Error(`Unknown mode ${mode}`);
};

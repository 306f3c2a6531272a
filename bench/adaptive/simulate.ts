// The adaptive limit against a virtual LLM server whose capacity it is not told: a batch backlog and a
// stream of chat requests, driven through the real core in virtual time.
import { createScheduler, type SchedulerOptions, VirtualClock } from "@llm-scheduler/core";
import { Capacity, type CapacityChange, VirtualUpstream } from "@llm-scheduler/simulator";
import { createLatencyModel } from "@llm-scheduler/upstream-sim";

export interface AdaptiveRunOptions {
  /** The gateway's limit: a number (fixed) or a range (adaptive). */
  readonly maxConcurrency: SchedulerOptions["maxConcurrency"];
  readonly knee: number;
  readonly hardLimit: number;
  readonly changes: readonly CapacityChange[];
  readonly durationMs: number;
  /** Closed-loop batch clients (0: chat alone, for the idle figure). */
  readonly batchClients: number;
  /** Chat arrivals per second (Poisson). */
  readonly chatPerSecond: number;
  readonly seed: number;
  /** Tunables of the adaptive limit. */
  readonly adaptive?: SchedulerOptions["adaptive"];
}

export interface ChatSample {
  readonly at: number;
  readonly ttfbMs: number;
}

export interface AdaptiveRun {
  /** The limit in force, sampled every second: [virtual ms, limit]. */
  readonly limits: ReadonlyArray<readonly [number, number]>;
  /** The upstream's busy sequences at the same samples. */
  readonly busy: readonly number[];
  readonly chat: readonly ChatSample[];
  /** Batch output tokens served, cumulative, sampled with `limits`. */
  readonly batchTokens: readonly number[];
  readonly refused503: number;
  readonly limitEvents: number;
}

const BATCH = { promptTokens: 1_000, completionTokens: 200 };
const CHAT = { promptTokens: 200, completionTokens: 50 };

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs one configuration for `durationMs` of virtual time. */
export async function simulateAdaptive(options: AdaptiveRunOptions): Promise<AdaptiveRun> {
  const clock = new VirtualClock(0);
  const model = createLatencyModel({
    parallel: 100_000,
    ttftMs: 150,
    prefillMsPerToken: 0.1,
    tokenMs: 20,
    slowdown: 0,
  });
  const capacity = new Capacity({
    knee: options.knee,
    hardLimit: options.hardLimit,
    changes: options.changes,
  });
  const upstream = new VirtualUpstream(model, clock, capacity);
  const scheduler = createScheduler({
    clock,
    maxConcurrency: options.maxConcurrency,
    ...(options.adaptive === undefined ? {} : { adaptive: options.adaptive }),
    priorities: {
      interactive: { weight: 5, reserved: 6, queueTimeoutMs: 60_000 },
      batch: { weight: 1, queueTimeoutMs: 1e9, maxQueue: 100_000 },
    },
  });
  let limitEvents = 0;
  scheduler.on("limit", () => limitEvents++);
  let refused503 = 0;
  let batchTokens = 0;
  const chat: ChatSample[] = [];
  const end = options.durationMs;

  /** One request through a permit, as an adapter holds it: first byte reported, released with the error. */
  async function request(priority: string, job: typeof BATCH, arrivedAt: number): Promise<boolean> {
    const permit = await scheduler.acquire({ priority });
    const controller = new AbortController();
    try {
      await upstream.generate({
        ...job,
        signal: controller.signal,
        onFirstToken: () => {
          permit.firstByte();
          if (priority === "interactive") chat.push({ at: arrivedAt, ttfbMs: clock.now() - arrivedAt });
        },
      });
      permit.release();
      return true;
    } catch (error) {
      refused503++;
      permit.release(error);
      return false;
    }
  }

  async function batchClient(): Promise<void> {
    while (clock.now() < end) {
      if (await request("batch", BATCH, clock.now())) batchTokens += BATCH.completionTokens;
      else await new Promise<void>((resolve) => clock.setTimer(() => resolve(), 1_000)); // back off
    }
  }
  for (let i = 0; i < options.batchClients; i++) void batchClient();

  const next = random(options.seed);
  const arrive = (): void => {
    if (clock.now() >= end) return;
    void request("interactive", CHAT, clock.now());
    clock.setTimer(arrive, (-Math.log(1 - next()) / options.chatPerSecond) * 1_000);
  };
  if (options.chatPerSecond > 0) clock.setTimer(arrive, 100);

  const limits: Array<[number, number]> = [];
  const busy: number[] = [];
  const tokens: number[] = [];
  for (let at = 0; at <= end; at += 1_000) {
    limits.push([at, scheduler.maxConcurrency]);
    busy.push(upstream.active);
    tokens.push(batchTokens);
    for (let step = 0; step < 20; step++) {
      clock.advance(50);
      await settle();
    }
  }
  // Left open: what still waits is dropped with the run (the clock never moves again).
  return { limits, busy, chat, batchTokens: tokens, refused503, limitEvents };
}

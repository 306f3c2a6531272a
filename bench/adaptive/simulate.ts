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
  /**
   * How requests reach the scheduler: `"permit"` holds a permit, reports the first byte and the usage
   * (as the HTTP adapters do); `"run"` is a plain `run()` task that reports nothing.
   */
  readonly feed: "permit" | "run";
  /** Slots reserved for chat. @default 0 */
  readonly chatReserved?: number;
}

export interface ChatSample {
  readonly at: number;
  readonly ttfbMs: number;
  /** From arrival to the last token (queue wait included). */
  readonly totalMs: number;
  /** From its start (a slot granted) to the last token. */
  readonly runMs: number;
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
      interactive: { weight: 5, reserved: options.chatReserved ?? 0, queueTimeoutMs: 60_000 },
      batch: { weight: 1, queueTimeoutMs: 1e9, maxQueue: 100_000 },
    },
  });
  let limitEvents = 0;
  scheduler.on("limit", () => limitEvents++);
  let refused503 = 0;
  let batchTokens = 0;
  const chat: ChatSample[] = [];
  const end = options.durationMs;

  const usage = (job: typeof BATCH) => ({
    inputTokens: job.promptTokens,
    outputTokens: job.completionTokens,
  });

  /** One request through a permit, as an adapter holds it: first byte and usage reported, released with the error. */
  async function viaPermit(priority: string, job: typeof BATCH, onFirst: () => void): Promise<number> {
    const permit = await scheduler.acquire({ priority });
    const startedAt = clock.now();
    const signal = new AbortController().signal;
    const onFirstToken = (): void => {
      permit.firstByte();
      onFirst();
    };
    try {
      await upstream.generate({ ...job, signal, onFirstToken });
      permit.reportUsage(usage(job));
      permit.release();
      return startedAt;
    } catch (error) {
      permit.release(error);
      throw error;
    }
  }

  /** One request as a plain task: the scheduler sees only when it starts and ends, and how. */
  async function viaRun(priority: string, job: typeof BATCH, onFirst: () => void): Promise<number> {
    let startedAt = 0;
    await scheduler.run(
      ({ signal }) => {
        startedAt = clock.now();
        return upstream.generate({ ...job, signal, onFirstToken: onFirst });
      },
      { priority },
    );
    return startedAt;
  }

  async function request(priority: string, job: typeof BATCH, arrivedAt: number): Promise<boolean> {
    let ttfbMs = 0;
    const onFirst = (): void => {
      ttfbMs = clock.now() - arrivedAt;
    };
    try {
      const startedAt = await (options.feed === "permit" ? viaPermit : viaRun)(priority, job, onFirst);
      const now = clock.now();
      if (priority === "interactive") {
        chat.push({ at: arrivedAt, ttfbMs, totalMs: now - arrivedAt, runMs: now - startedAt });
      }
      return true;
    } catch {
      refused503++;
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

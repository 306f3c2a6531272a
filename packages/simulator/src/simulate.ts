import { createScheduler, type Scheduler, VirtualClock } from "@llm-scheduler/core";
import { createLatencyModel, createRandom, mixSeed } from "@llm-scheduler/upstream-sim";
import { Capacity } from "./capacity.js";
import { Driver } from "./driver.js";
import { LightAbortController } from "./light-abort.js";
import { Recorder } from "./recorder.js";
import type { ResolvedScenario } from "./scenario-resolve.js";
import { type RunResult, summarize } from "./stats.js";
import { type Gateway, reservedOf } from "./transport.js";
import { createVirtualFifoGateway, createVirtualScheduledGateway } from "./virtual-gateways.js";
import { VirtualPool } from "./virtual-pool.js";
import { runVirtualTime } from "./virtual-time.js";
import { type GenerationTarget, VirtualUpstream } from "./virtual-upstream.js";
import { generateWorkload, type Workload } from "./workload.js";

/** Which gateway a run puts between the clients and the server. */
export type GatewayKind = "fifo" | "scheduler";

/** Options of {@link simulate}. */
export interface SimulateOptions {
  /** `"fifo"`: a limit and one queue; `"scheduler"`: llm-scheduler with the scenario's options. */
  readonly gateway: GatewayKind;
  /** Name of the run in tables. @default "FIFO" or "llm-scheduler" */
  readonly label?: string;
  /** A workload already drawn from the scenario (saves drawing it again for each run). */
  readonly workload?: Workload;
  /** Load is sampled this often (virtual ms) for the charts. @default durationMs / 400, 10 ms to 10 min */
  readonly sampleEveryMs?: number;
  /** Stops with an error after this many timer events (a safety net against a run that never ends). */
  readonly maxEvents?: number;
}

/** The random stream of the pool's router (power of two choices), apart from the workload's. */
const POOL_ROUTER = 5;

function defaultSampleEvery(durationMs: number): number {
  return Math.min(600_000, Math.max(10, durationMs / 400));
}

/**
 * Replays a scenario in virtual time: the REAL scheduler from `@llm-scheduler/core` (or the FIFO
 * baseline) on a `VirtualClock`, in front of the upstream-sim latency model, with the client behaviour
 * of the scenario (Poisson chat, front-end timeouts and retries, batch floods). No real waiting: a day of
 * traffic runs in seconds, and the same scenario and seed always give the same result.
 *
 * @example
 * const scenario = resolveScenario(JSON.parse(await readFile("scenario.json", "utf8")));
 * const fifo = await simulate(scenario, { gateway: "fifo" });
 * const scheduled = await simulate(scenario, { gateway: "scheduler" });
 * console.log(renderComparison(scenario, [fifo, scheduled]));
 */
export async function simulate(scenario: ResolvedScenario, options: SimulateOptions): Promise<RunResult> {
  const clock = new VirtualClock(0);
  const serverCapacity = scenario.capacity === undefined ? undefined : new Capacity(scenario.capacity);
  const pool =
    scenario.pool === undefined
      ? undefined
      : new VirtualPool(
          scenario.pool,
          scenario.upstream,
          clock,
          createRandom(mixSeed(scenario.seed, POOL_ROUTER)),
        );
  const upstream: GenerationTarget =
    pool ?? new VirtualUpstream(createLatencyModel(scenario.upstream), clock, serverCapacity);
  const capacity = scenario.maxConcurrency;
  let scheduler: Scheduler | undefined;
  let recorder: Recorder;
  let gateway: Gateway;
  if (options.gateway === "fifo") {
    recorder = new Recorder(clock, { capacity });
    gateway = createVirtualFifoGateway(capacity, upstream, clock, recorder);
  } else {
    scheduler = createScheduler({ ...scenario.scheduler, clock });
    recorder = new Recorder(clock, { capacity, reserved: reservedOf(scheduler) });
    const watched = recorder;
    scheduler.on("limit", ({ limit }) => watched.limitChanged(limit));
    const configured = scheduler.options.maxConcurrency;
    const pooled = scheduler;
    // As in the pool: the scheduler's limit is the replicas' sum, capped by the configured one.
    pool?.onCapacity((sum) => {
      const limit = Math.max(1, Math.min(configured, sum));
      if (typeof scenario.scheduler.maxConcurrency !== "number" || pooled.maxConcurrency === limit) return;
      try {
        void pooled.update({ maxConcurrency: limit });
      } catch {
        // refused (reserves above the sum): the old limit stays; the replicas still hold theirs
      }
    });
    gateway = createVirtualScheduledGateway(scheduler, upstream, clock, recorder);
  }
  const workload = options.workload ?? generateWorkload(scenario);
  const controllers = () => new LightAbortController();
  const driver = new Driver({ scenario, workload, clock, transport: gateway, recorder, controllers });
  const every = options.sampleEveryMs ?? defaultSampleEvery(scenario.durationMs);
  const sample = (): void => {
    recorder.sample(gateway.snapshot());
    if (!driver.finished) clock.setTimer(sample, every);
  };
  driver.start();
  sample();
  await runVirtualTime(clock, () => driver.finished, options.maxEvents ?? 50_000_000);
  pool?.close();
  recorder.sample(gateway.snapshot());
  await scheduler?.close();
  const label = options.label ?? (options.gateway === "fifo" ? "FIFO" : "llm-scheduler");
  const result = summarize(label, recorder, scenario);
  return pool === undefined ? result : { ...result, replicas: pool.results() };
}

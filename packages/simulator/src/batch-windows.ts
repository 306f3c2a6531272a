import {
  type Batch,
  type BatchView,
  type CreateBatchOptions,
  createBatches,
  MemoryBatchStore,
} from "@llm-scheduler/batches";
import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import { createLatencyModel, createRandom, mixSeed } from "@llm-scheduler/upstream-sim";
import { type BatchJobSpec, generateBatchJobs } from "./batch-jobs.js";
import { Capacity } from "./capacity.js";
import { Driver } from "./driver.js";
import { LightAbortController } from "./light-abort.js";
import { Recorder } from "./recorder.js";
import { ScenarioError } from "./scenario-error.js";
import type { ResolvedScenario } from "./scenario-resolve.js";
import { type Percentiles, percentiles } from "./stats.js";
import { reservedOf } from "./transport.js";
import { createVirtualScheduledGateway } from "./virtual-gateways.js";
import { runVirtualTime } from "./virtual-time.js";
import { VirtualUpstream } from "./virtual-upstream.js";
import { generateWorkload } from "./workload.js";

/** Options of {@link simulateBatchWindows}. */
export interface BatchWindowOptions {
  /** The batch layer's `batchOrder`: earliest deadline first, or FIFO across batches. */
  readonly order: "deadline" | "created";
  /** The batch layer's `orderTieMs`. @default 60_000 */
  readonly orderTieMs?: number;
  /** Name of the run in tables. @default the order */
  readonly label?: string;
  /** Stops with an error after this many timer events. @default 50_000_000 */
  readonly maxEvents?: number;
}

/** How one batch of `batch.jobs` ended. */
export interface BatchOutcome {
  readonly tenant: string;
  readonly items: number;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** When it completed, expired or was otherwise ended. */
  readonly endedAt: number;
  readonly status: string;
  /** It completed by the end of its window. */
  readonly withinWindow: boolean;
  /** `estimatedCompletionAt` as `get()` answered when a quarter of its items had ended (null: none). */
  readonly estimateAtQuarter: number | null;
  /** When that estimate was read (the virtual clock's ms; null: none). */
  readonly quarterAt: number | null;
}

/** What {@link simulateBatchWindows} measures. */
export interface BatchWindowResult {
  readonly label: string;
  readonly batches: readonly BatchOutcome[];
  /** Share of the batches that completed within their window, 0 to 1. */
  readonly withinWindow: number;
  /**
   * `|estimate - actual end| / (actual end - creation)` of the completed batches that had an estimate
   * at a quarter of their items, as percentiles of fractions.
   */
  readonly estimateError: Percentiles;
}

/**
 * Runs the scenario's `batch.jobs` through the REAL batch layer (`createBatches`, memory store) on the
 * REAL scheduler, in virtual time in front of the upstream model, with the scenario's chat (and batch
 * tenants) sharing the scheduler. Each batch's end is compared with its window, and the completion
 * estimate read at a quarter of its items with its real end.
 *
 * @example
 * const edf = await simulateBatchWindows(scenario, { order: "deadline" });
 * const fifo = await simulateBatchWindows(scenario, { order: "created", orderTieMs: 0 });
 * console.log(edf.withinWindow, fifo.withinWindow);
 */
export async function simulateBatchWindows(
  scenario: ResolvedScenario,
  options: BatchWindowOptions,
): Promise<BatchWindowResult> {
  if (scenario.batch.jobs === null) throw new ScenarioError("batch.jobs", "The scenario has no `batch.jobs`");
  const jobs = generateBatchJobs(scenario.batch.jobs, scenario.seed);
  const clock = new VirtualClock(0);
  const serverCapacity = scenario.capacity === undefined ? undefined : new Capacity(scenario.capacity);
  const upstream = new VirtualUpstream(createLatencyModel(scenario.upstream), clock, serverCapacity);
  const scheduler = createScheduler({ ...scenario.scheduler, clock });
  const recorder = new Recorder(clock, {
    capacity: scenario.maxConcurrency,
    reserved: reservedOf(scheduler),
  });
  const gateway = createVirtualScheduledGateway(scheduler, upstream, clock, recorder);
  const workload = generateWorkload(scenario);
  const controllers = () => new LightAbortController();
  const driver = new Driver({ scenario, workload, clock, transport: gateway, recorder, controllers });
  const batches = createBatches({
    scheduler,
    clock,
    store: new MemoryBatchStore(),
    maxInFlight: scenario.maxConcurrency,
    batchOrder: options.order,
    orderTieMs: options.orderTieMs ?? 60_000,
    random: createRandom(mixSeed(scenario.seed, 6)),
    execute: async ({ item, signal }) => {
      const { promptTokens, maxTokens } = item.body as { promptTokens: number; maxTokens: number };
      await upstream.generate({ promptTokens, completionTokens: maxTokens, signal });
      return { status: 200, body: null };
    },
  });
  const follow = new Follow(batches.get.bind(batches), () => clock.now());
  batches.on("progress", (event) => follow.progress(event.id, event.requestCounts));
  batches.on("done", (event) => follow.done(event.id));
  for (const job of jobs) clock.setTimer(() => void follow.create(job, batches.create.bind(batches)), job.at);
  driver.start();
  await runVirtualTime(
    clock,
    () => driver.finished && follow.ended === jobs.length,
    options.maxEvents ?? 5e7,
  );
  await batches.close();
  await scheduler.close();
  return follow.result(options.label ?? options.order);
}

type Get = (id: string) => Promise<BatchView | undefined>;
type Create = (options: CreateBatchOptions) => Promise<Batch>;

/** Follows every batch of a run: its estimate at a quarter of its items, and how it ended. */
class Follow {
  readonly #get: Get;
  readonly #now: () => number;
  readonly #quarter = new Map<string, number | null>();
  readonly #quarterAt = new Map<string, number>();
  readonly #outcomes: BatchOutcome[] = [];
  readonly #specs = new Map<string, BatchJobSpec>();

  constructor(get: Get, now: () => number) {
    this.#get = get;
    this.#now = now;
  }

  get ended(): number {
    return this.#outcomes.length;
  }

  async create(job: BatchJobSpec, create: Create): Promise<void> {
    const items = job.items.map((body, index) => ({
      customId: `i-${index}`,
      url: "/v1/chat/completions",
      body,
    }));
    const batch = await create({ items, tenant: job.tenant, completionWindowMs: job.completionWindowMs });
    this.#specs.set(batch.id, job);
  }

  progress(id: string, counts: { total: number; completed: number; failed: number }): void {
    if (this.#quarter.has(id) || (counts.completed + counts.failed) * 4 < counts.total) return;
    this.#quarter.set(id, null);
    this.#quarterAt.set(id, this.#now());
    void this.#get(id).then((view) => this.#quarter.set(id, view?.estimatedCompletionAt ?? null));
  }

  done(id: string): void {
    void this.#get(id).then((view) => {
      if (view === undefined) return;
      const endedAt = view.completedAt ?? view.expiredAt ?? view.cancelledAt ?? view.failedAt ?? 0;
      this.#outcomes.push({
        tenant: view.tenant,
        items: view.requestCounts.total,
        createdAt: view.createdAt,
        expiresAt: view.expiresAt,
        endedAt,
        status: view.status,
        withinWindow: view.status === "completed" && endedAt <= view.expiresAt,
        estimateAtQuarter: this.#quarter.get(id) ?? null,
        quarterAt: this.#quarterAt.get(id) ?? null,
      });
    });
  }

  result(label: string): BatchWindowResult {
    const batches = [...this.#outcomes].sort((a, b) => a.createdAt - b.createdAt);
    const errors = batches
      .filter((b) => b.status === "completed" && b.estimateAtQuarter !== null && b.endedAt > b.createdAt)
      .map((b) => Math.abs(b.estimateAtQuarter! - b.endedAt) / (b.endedAt - b.createdAt))
      .sort((x, y) => x - y);
    const within = batches.filter((b) => b.withinWindow).length;
    return {
      label,
      batches,
      withinWindow: batches.length === 0 ? 0 : within / batches.length,
      estimateError: percentiles(errors),
    };
  }
}

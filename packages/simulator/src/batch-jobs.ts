import { createRandom, mixSeed } from "@llm-scheduler/upstream-sim";
import type { ResolvedBatchJobs } from "./scenario-resolve.js";
import { drawRange, exponentialMs } from "./workload.js";

/** One batch of `batch.jobs`: when it is created, by whom, its window and its items' sizes. */
export interface BatchJobSpec {
  readonly at: number;
  readonly tenant: string;
  readonly completionWindowMs: number;
  readonly items: ReadonlyArray<{ readonly promptTokens: number; readonly maxTokens: number }>;
}

const JOB_ARRIVALS = 4;
const JOB_SIZES = 5;

/**
 * Draws the batches of `batch.jobs` from the seed: Poisson arrivals of `ratePerMin` from `startMs`, a
 * tenant, a window and a number of items each, and each item's sizes. Same seed, same batches.
 *
 * @example
 * const jobs = generateBatchJobs(scenario.batch.jobs!, scenario.seed);
 */
export function generateBatchJobs(jobs: ResolvedBatchJobs, seed: number): BatchJobSpec[] {
  const arrivals = createRandom(mixSeed(seed, JOB_ARRIVALS));
  const sizes = createRandom(mixSeed(seed, JOB_SIZES));
  const specs: BatchJobSpec[] = [];
  let at = jobs.startMs;
  for (let n = 0; n < jobs.count; n++) {
    at += exponentialMs(arrivals, jobs.ratePerMin / 60);
    const tenant = jobs.tenants[Math.floor(arrivals() * jobs.tenants.length)]!;
    const completionWindowMs = drawRange(arrivals, jobs.completionWindowMs);
    const count = drawRange(sizes, jobs.items);
    const items = Array.from({ length: count }, () => ({
      promptTokens: drawRange(sizes, jobs.promptTokens),
      maxTokens: drawRange(sizes, jobs.maxTokens),
    }));
    specs.push({ at, tenant, completionWindowMs, items });
  }
  return specs;
}

import { between, exponential, seeded } from "./random.js";

export type Kind = "interactive" | "batch";

/** One request of the trace: when it arrives and how long it holds a slot once started. */
export interface Job {
  readonly index: number;
  readonly kind: Kind;
  readonly tenant: string;
  readonly arrival: number;
  readonly service: number;
}

export interface Scenario {
  readonly seed: number;
  readonly slots: number;
  /** Batch tenants, each flooding `batchPerTenant` items at its `floodAt` (ms). */
  readonly floods: ReadonlyArray<{ readonly tenant: string; readonly at: number }>;
  readonly batchPerTenant: number;
  /** Batch service time, uniform in [low, high) ms. */
  readonly batchService: readonly [number, number];
  /** Interactive requests arrive as a Poisson process with this mean gap, until `interactiveUntil`. */
  readonly interactiveGapMs: number;
  readonly interactiveUntil: number;
  readonly interactiveService: readonly [number, number];
  readonly interactiveTenants: number;
}

/**
 * An offline job floods the slots (two batch tenants, the second a little later) while chat users
 * arrive at random with short requests. Times are in virtual milliseconds.
 */
export function scenario(quick: boolean): Scenario {
  return {
    seed: 20_240_601,
    slots: 8,
    floods: [
      { tenant: "indexer-a", at: 0 },
      { tenant: "indexer-b", at: 30_000 },
    ],
    batchPerTenant: quick ? 60 : 400,
    batchService: [2_000, 6_000],
    interactiveGapMs: 1_000,
    interactiveUntil: quick ? 40_000 : 300_000,
    interactiveService: [300, 1_500],
    interactiveTenants: 4,
  };
}

/** The jobs of a scenario, sorted by arrival (ties keep generation order). */
export function buildTrace(s: Scenario): Job[] {
  const random = seeded(s.seed);
  const jobs: Array<Omit<Job, "index">> = [];
  for (const { tenant, at } of s.floods) {
    for (let i = 0; i < s.batchPerTenant; i++) {
      jobs.push({
        kind: "batch",
        tenant,
        arrival: at,
        service: Math.round(between(random, ...s.batchService)),
      });
    }
  }
  for (
    let t = exponential(random, s.interactiveGapMs);
    t < s.interactiveUntil;
    t += exponential(random, s.interactiveGapMs)
  ) {
    jobs.push({
      kind: "interactive",
      tenant: `chat-${Math.floor(random() * s.interactiveTenants)}`,
      arrival: Math.round(t),
      service: Math.round(between(random, ...s.interactiveService)),
    });
  }
  return jobs
    .map((job, order) => ({ job, order }))
    .sort((a, b) => a.job.arrival - b.job.arrival || a.order - b.order)
    .map(({ job }, index) => ({ ...job, index }));
}

import type { PriorityOptions, SchedulerOptions } from "@llm-scheduler/core";
import fc from "fast-check";
import type { Driver } from "./driver.js";
import { configureStep, releaseStep, removeStep } from "./steps.js";

/**
 * Random scenarios for the tenant quotas, the token budget and token fairness, played on a store
 * through a {@link Driver}: enqueues with token estimates, usage reports, releases, removals, time
 * passing and new limits. Rates and weights are powers of two (times 15,000 tokens a minute), so that
 * bucket levels and counters are exact whatever order the two stores refill them in.
 */

interface RawQuota {
  readonly maxConcurrency: number | null;
  readonly maxQueue: number | null;
  readonly tokensPerMinute: number | null;
  readonly burstTokens: number;
}

export interface QuotaScenario {
  readonly maxConcurrency: number;
  readonly twoPriorities: boolean;
  readonly maxTokensInFlight: number | null;
  readonly fairness: "requests" | "tokens";
  readonly outputTokenWeight: number;
  readonly defaults: RawQuota;
  readonly own: RawQuota | null;
  readonly tenantWeights: readonly number[];
  readonly ops: readonly QuotaOp[];
}

type QuotaOp =
  | { readonly kind: "enqueue"; readonly p: number; readonly t: number; readonly tokens: number }
  | { readonly kind: "usage"; readonly k: number; readonly input: number; readonly output: number }
  | { readonly kind: "release"; readonly k: number }
  | { readonly kind: "remove"; readonly k: number }
  | { readonly kind: "advance"; readonly ms: number }
  | { readonly kind: "configure"; readonly max: number };

export const QUOTA_TENANTS = ["t0", "t1", "t2"];

const quota: fc.Arbitrary<RawQuota> = fc.record({
  maxConcurrency: fc.option(fc.integer({ min: 1, max: 3 })),
  maxQueue: fc.option(fc.integer({ min: 1, max: 4 })),
  tokensPerMinute: fc.option(fc.constantFrom(15_000, 30_000, 60_000, 120_000)),
  burstTokens: fc.constantFrom(100, 400, 1_000, 3_000),
});

export const quotaScenario: fc.Arbitrary<QuotaScenario> = fc.record({
  maxConcurrency: fc.integer({ min: 1, max: 5 }),
  twoPriorities: fc.boolean(),
  maxTokensInFlight: fc.option(fc.constantFrom(300, 1_000, 2_500)),
  fairness: fc.constantFrom("requests" as const, "tokens" as const),
  outputTokenWeight: fc.constantFrom(1, 2, 4),
  defaults: quota,
  own: fc.option(quota),
  tenantWeights: fc.array(fc.constantFrom(0.5, 1, 2, 4), { minLength: 3, maxLength: 3 }),
  ops: fc.array(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant("enqueue" as const),
          p: fc.nat(),
          t: fc.nat(),
          tokens: fc.constantFrom(0, 50, 120, 300, 800, 1_500),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant("usage" as const),
          k: fc.nat(),
          input: fc.integer({ min: 0, max: 1_000 }),
          output: fc.integer({ min: 0, max: 500 }),
        }),
      },
      releaseStep,
      removeStep,
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant("advance" as const),
          ms: fc.oneof(fc.constantFrom(100, 1_000, 4_000), fc.integer({ min: 0, max: 3_000 })),
        }),
      },
      configureStep,
    ),
    { minLength: 5, maxLength: 50 },
  ),
});

function quotaOptions(raw: RawQuota): Record<string, number> {
  const options: Record<string, number> = {};
  if (raw.maxConcurrency !== null) options.maxConcurrency = raw.maxConcurrency;
  if (raw.maxQueue !== null) options.maxQueue = raw.maxQueue;
  if (raw.tokensPerMinute !== null) {
    options.tokensPerMinute = raw.tokensPerMinute;
    options.burstTokens = raw.burstTokens;
  }
  return options;
}

/** Valid scheduler options from a scenario; `t0` has quotas of its own when the scenario says so. */
export function quotaOptionsOf(s: QuotaScenario, maxConcurrency = s.maxConcurrency): SchedulerOptions {
  const priorities: Record<string, PriorityOptions> = s.twoPriorities
    ? { hi: { weight: 3, maxWaitMs: 2_000 }, lo: { weight: 1 } }
    : { only: {} };
  const tenants = Object.fromEntries(
    QUOTA_TENANTS.map((t, i) => [
      t,
      { weight: s.tenantWeights[i]!, ...(i === 0 && s.own !== null ? quotaOptions(s.own) : {}) },
    ]),
  );
  return {
    maxConcurrency,
    priorities,
    fairness: s.fairness,
    outputTokenWeight: s.outputTokenWeight,
    ...(s.maxTokensInFlight === null ? {} : { maxTokensInFlight: s.maxTokensInFlight }),
    tenantDefaults: quotaOptions(s.defaults),
    tenants,
  };
}

/** Plays the scenario on one store; returns everything it did, in order. */
export async function playQuotas(driver: Driver, s: QuotaScenario): Promise<unknown[]> {
  await driver.attach();
  const released = new Set<number>();
  const reported = new Set<number>();
  const gone = new Set<number>();
  const queued: number[] = [];
  const log: unknown[] = [];
  for (const op of s.ops) {
    if (op.kind === "enqueue") {
      const { priorities } = driver.options;
      const priority = priorities[op.p % priorities.length]!;
      const [ticket, result] = await driver.enqueue({
        priority: priority.name,
        tenant: QUOTA_TENANTS[op.t % QUOTA_TENANTS.length],
        ...(op.tokens === 0 ? {} : { tokens: op.tokens }),
      });
      if (result === "queued") queued.push(ticket.seq);
    } else if (op.kind === "usage") {
      const running = driver.granted.filter((seq) => !reported.has(seq));
      if (running.length === 0) continue;
      const seq = running[op.k % running.length]!;
      reported.add(seq);
      await driver.reportUsage(seq, { inputTokens: op.input, outputTokens: op.output });
    } else if (op.kind === "release") {
      const running = driver.granted.filter((seq) => !released.has(seq));
      if (running.length === 0) continue;
      const seq = running[op.k % running.length]!;
      released.add(seq);
      await driver.release(seq);
    } else if (op.kind === "remove") {
      const waiting = queued.filter((seq) => !gone.has(seq) && !driver.granted.includes(seq));
      if (waiting.length === 0) continue;
      const seq = waiting[op.k % waiting.length]!;
      gone.add(seq);
      await driver.remove(seq);
    } else if (op.kind === "advance") {
      driver.clock.advance(op.ms);
    } else {
      await driver.configure(quotaOptionsOf(s, op.max));
    }
    const snapshot = driver.store.snapshot(0);
    log.push([op.kind, snapshot.running, snapshot.queued, driver.events.length]);
  }
  await driver.close();
  return [driver.events, log];
}

import type { SchedulerOptions } from "@llm-scheduler/core";
import fc from "fast-check";
import type { Driver } from "./driver.js";
import { configureStep, releaseStep, removeStep } from "./steps.js";

/**
 * Random sequences of store calls (enqueues with random priorities, tenants, costs and retries;
 * releases; removals; time passing; new limits) and how to play one on a store, for the conformance
 * properties: every store must make exactly the memory store's choices, in the same order.
 */

interface RawPriority {
  readonly weight: number;
  readonly reserved: number;
  readonly cap: number | null;
  readonly maxQueue: number;
  readonly maxWaitMs: number;
}

export interface Scenario {
  readonly maxConcurrency: number;
  readonly maxQueue: number;
  readonly priorities: readonly RawPriority[];
  readonly tenantWeights: readonly number[];
  readonly ops: readonly Op[];
}

type Op =
  | {
      readonly kind: "enqueue";
      readonly p: number;
      readonly t: number;
      readonly cost: number;
      readonly retry: boolean;
    }
  | { readonly kind: "release"; readonly k: number }
  | { readonly kind: "remove"; readonly k: number }
  | { readonly kind: "advance"; readonly ms: number }
  | { readonly kind: "configure"; readonly max: number };

const TENANTS = ["t0", "t1", "t2"];

export const scenario: fc.Arbitrary<Scenario> = fc.record({
  maxConcurrency: fc.integer({ min: 1, max: 4 }),
  maxQueue: fc.constantFrom(Number.POSITIVE_INFINITY, 12),
  priorities: fc.array(
    fc.record({
      weight: fc.constantFrom(0.5, 1, 2, 3, 5, 0.3),
      reserved: fc.integer({ min: 0, max: 1 }),
      cap: fc.option(fc.integer({ min: 1, max: 4 })),
      maxQueue: fc.integer({ min: 2, max: 8 }),
      maxWaitMs: fc.constantFrom(Number.POSITIVE_INFINITY, 1_000, 3_000),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  tenantWeights: fc.array(fc.constantFrom(0.5, 1, 2, 0.7), { minLength: 3, maxLength: 3 }),
  ops: fc.array(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant("enqueue" as const),
          p: fc.nat(),
          t: fc.nat(),
          cost: fc.constantFrom(1, 1, 1, 2),
          retry: fc.boolean(),
        }),
      },
      releaseStep,
      removeStep,
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant("advance" as const),
          // exact multiples of the aging bounds hit the ">= maxWaitMs" boundary
          ms: fc.oneof(fc.constantFrom(500, 1_000, 3_000), fc.integer({ min: 0, max: 4_000 })),
        }),
      },
      configureStep,
    ),
    { minLength: 5, maxLength: 45 },
  ),
});

/** Valid scheduler options from a scenario: caps within the total, reserves within caps and the total. */
export function optionsOf(s: Scenario, maxConcurrency = s.maxConcurrency): SchedulerOptions {
  let reserveLeft = maxConcurrency;
  const priorities: Record<string, object> = {};
  s.priorities.forEach((p, i) => {
    const cap = Math.min(p.cap ?? maxConcurrency, maxConcurrency);
    const reserved = Math.min(p.reserved, cap, reserveLeft);
    reserveLeft -= reserved;
    priorities[`p${i}`] = {
      weight: p.weight,
      reserved,
      maxConcurrency: cap,
      maxQueue: p.maxQueue,
      maxWaitMs: p.maxWaitMs,
    };
  });
  return {
    maxConcurrency,
    maxQueue: s.maxQueue,
    priorities,
    tenants: Object.fromEntries(TENANTS.map((t, i) => [t, { weight: s.tenantWeights[i]! }])),
  };
}

/** Plays the scenario on one store; returns everything it did, in order. */
export async function play(driver: Driver, s: Scenario): Promise<unknown[]> {
  await driver.attach();
  const released = new Set<number>();
  const gone = new Set<number>();
  const queued: number[] = [];
  const log: unknown[] = [];
  for (const op of s.ops) {
    if (op.kind === "enqueue") {
      const priority = driver.options.priorities[op.p % driver.options.priorities.length]!;
      const cost = Math.min(op.cost, priority.maxConcurrency);
      const [ticket, result] = await driver.enqueue({
        priority: priority.name,
        tenant: TENANTS[op.t % TENANTS.length],
        cost,
        retry: op.retry,
      });
      if (result === "queued") queued.push(ticket.seq);
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
      const options = optionsOf(s, op.max);
      await driver.configure(options);
    }
    const snapshot = driver.store.snapshot(0);
    log.push([op.kind, snapshot.running, snapshot.queued, driver.events.length]);
  }
  await driver.close();
  return [driver.events, log];
}

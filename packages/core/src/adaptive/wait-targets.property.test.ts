import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resolveOptions } from "../resolve-options.js";
import { effectiveOptions } from "./effective-priorities.js";
import { WaitTargetLane } from "./wait-target-lane.js";

/** One judged window of one lane: its waits, how much of the priority ran, and the limit then. */
const windowOf = fc.record({
  lane: fc.integer({ min: 0, max: 2 }),
  waitMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5_000 })),
  running: fc.integer({ min: 0, max: 40 }),
  maxConcurrency: fc.integer({ min: 1, max: 40 }),
});

const setup = fc.record({
  reserved: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 3, maxLength: 3 }),
  weights: fc.array(fc.double({ min: 0.001, max: 1_000, noNaN: true }), { minLength: 3, maxLength: 3 }),
  targets: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  maxBoost: fc.double({ min: 1, max: 10_000, noNaN: true }),
  maxReservedShare: fc.double({ min: 0, max: 1, noNaN: true }),
  windows: fc.array(windowOf, { maxLength: 60 }),
});

describe("wait-target bounds (property)", () => {
  it("keeps every effective weight and reserve within bounds, reserves in total within the limit", () => {
    fc.assert(
      fc.property(setup, ({ reserved, weights, targets, maxBoost, maxReservedShare, windows }) => {
        const names = ["a", "b", "c"];
        const lanes = new Map<string, WaitTargetLane>();
        names.forEach((name, i) => {
          if (targets[i]) lanes.set(name, new WaitTargetLane(500, 0));
        });
        let now = 0;
        for (const step of windows) {
          const maxConcurrency = Math.max(
            step.maxConcurrency,
            reserved.reduce((a, b) => a + b, 0),
          );
          const options = resolveOptions({
            maxConcurrency,
            priorities: Object.fromEntries(
              names.map((name, i) => [
                name,
                { weight: weights[i], reserved: reserved[i], ...(targets[i] ? { targetWaitMs: 500 } : {}) },
              ]),
            ),
            waitTargets: { windowMs: 1_000, minSamples: 1, calmWindows: 1, maxBoost, maxReservedShare },
          });
          const name = names[step.lane]!;
          const lane = lanes.get(name);
          now += 1_000;
          if (lane !== undefined) {
            lane.record(now, step.waitMs, step.running);
            lane.judge(now, options.waitTargets, options.priorityByName.get(name)!.reserved + lane.extra);
          }
          const effective = effectiveOptions(options, lanes, options.waitTargets, options.maxConcurrency);
          let total = 0;
          for (const own of options.priorities) {
            const now = effective.priorityByName.get(own.name)!;
            total += now.reserved;
            expect(now.weight).toBeGreaterThanOrEqual(own.weight);
            expect(now.weight).toBeLessThanOrEqual(
              Math.max(own.weight, Math.min(1_000_000, own.weight * maxBoost)) * (1 + 1e-12),
            );
            expect(Number.isInteger(now.reserved)).toBe(true);
            expect(now.reserved).toBeGreaterThanOrEqual(own.reserved);
            expect(now.reserved).toBeLessThanOrEqual(own.maxConcurrency);
            if (now.reserved > own.reserved) {
              expect(now.reserved).toBeLessThanOrEqual(Math.floor(maxReservedShare * maxConcurrency));
            }
            if (!lanes.has(own.name)) expect(now).toBe(own);
          }
          expect(total).toBeLessThanOrEqual(maxConcurrency);
          // What the store accepts: the effective options resolve as valid options themselves.
          expect(() =>
            resolveOptions({
              maxConcurrency,
              priorities: Object.fromEntries(
                effective.priorities.map((p) => [p.name, { weight: p.weight, reserved: p.reserved }]),
              ),
            }),
          ).not.toThrow();
        }
      }),
      { numRuns: 100 },
    );
  });
});

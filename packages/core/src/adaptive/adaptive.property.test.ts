import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ClosedLoad, runFor } from "../../test/adaptive-load.js";
import { VirtualClock } from "../clock.js";
import { createScheduler } from "../scheduler.js";

/** One request's fate: how slow it is and how it ends. */
const answer = fc.record({
  ttfbMs: fc.integer({ min: 1, max: 200 }),
  runMs: fc.integer({ min: 1, max: 400 }),
  ending: fc.constantFrom("ok", "ok", "ok", "503", "429", "reset", "500"),
});

const errors: Record<string, unknown> = {
  "503": Object.assign(new Error("busy"), { status: 503 }),
  "429": Object.assign(new Error("limited"), { status: 429 }),
  reset: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
  "500": Object.assign(new Error("oops"), { status: 500 }),
};

describe("adaptive limit: properties", () => {
  it("keeps the limit within [max(min, sum of reserved), max], and no start ever exceeds it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          min: fc.integer({ min: 1, max: 4 }),
          span: fc.integer({ min: 0, max: 12 }),
          reserved: fc.integer({ min: 0, max: 5 }),
          clients: fc.integer({ min: 1, max: 30 }),
          answers: fc.array(answer, { minLength: 1, maxLength: 40 }),
          cooldownMs: fc.constantFrom(0, 200, 2_000),
        }),
        async ({ min, span, reserved, clients, answers, cooldownMs }) => {
          const max = Math.max(min + span, reserved);
          const clock = new VirtualClock(0);
          const scheduler = createScheduler({
            clock,
            maxConcurrency: { min, max },
            adaptive: { windowMs: 100, minSamples: 2, cooldownMs },
            priorities: { work: { reserved } },
          });
          const floor = Math.max(min, reserved);
          const limits: number[] = [scheduler.maxConcurrency];
          scheduler.on("limit", (event) => limits.push(event.limit));
          let next = 0;
          const load = new ClosedLoad(scheduler, clock, () => {
            const { ttfbMs, runMs, ending } = answers[next++ % answers.length]!;
            return { ttfbMs, runMs: Math.max(ttfbMs, runMs), error: errors[ending] };
          });
          load.start(clients);
          await runFor(clock, 3_000, 25);
          load.stop();
          expect(load.violations).toEqual([]);
          for (const limit of limits) {
            expect(limit).toBeGreaterThanOrEqual(floor);
            expect(limit).toBeLessThanOrEqual(max);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

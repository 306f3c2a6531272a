import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { flush } from "../test/harness.js";
import { VirtualClock } from "./clock.js";
import { createScheduler } from "./scheduler.js";

const CAPS = [1, 2, 3, Number.POSITIVE_INFINITY];
const BUDGET = 2_000;

type Op =
  | { kind: "submit"; tenant: number; tokens: number; priority: "hi" | "lo" }
  | { kind: "settle"; index: number }
  | { kind: "advance"; ms: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("submit" as const),
      tenant: fc.integer({ min: 0, max: 3 }),
      // Mostly within the budget, sometimes larger than all of it.
      tokens: fc.oneof(fc.integer({ min: 0, max: 900 }), fc.integer({ min: 2_001, max: 5_000 })),
      priority: fc.constantFrom("hi" as const, "lo" as const),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("settle" as const), index: fc.nat(30) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 5_000 }) }),
  },
);

describe("quota properties", () => {
  it("never runs a tenant above its maxConcurrency, nor more tokens than the budget but for a lone oversize task", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 120 }),
        fc.constantFrom("requests" as const, "tokens" as const),
        async (ops, fairness) => {
          const clock = new VirtualClock();
          const scheduler = createScheduler({
            clock,
            maxConcurrency: 6,
            maxTokensInFlight: BUDGET,
            fairness,
            priorities: { hi: { weight: 3, queueTimeoutMs: 1e9 }, lo: { queueTimeoutMs: 1e9 } },
            tenants: Object.fromEntries(
              CAPS.map((cap, i) => [`t${i}`, { maxConcurrency: cap, tokensPerMinute: 600_000 }]),
            ),
          });
          const running: Array<{ tenant: number; tokens: number; end: () => void }> = [];
          const check = (): void => {
            for (let t = 0; t < CAPS.length; t++) {
              expect(running.filter((task) => task.tenant === t).length).toBeLessThanOrEqual(CAPS[t]!);
            }
            const inFlight = running.reduce((sum, task) => sum + task.tokens, 0);
            if (inFlight > BUDGET) expect(running.length).toBe(1);
          };
          for (const step of ops) {
            if (step.kind === "submit") {
              const entry = { tenant: step.tenant, tokens: step.tokens, end: () => {} };
              scheduler
                .run(
                  () =>
                    new Promise<void>((resolve) => {
                      entry.end = resolve;
                      running.push(entry);
                      check();
                    }),
                  { tenant: `t${step.tenant}`, tokens: step.tokens, priority: step.priority },
                )
                .catch(() => {});
            } else if (step.kind === "settle" && running.length > 0) {
              const [task] = running.splice(step.index % running.length, 1);
              task!.end();
            } else if (step.kind === "advance") {
              clock.advance(step.ms);
            }
            await flush();
            check();
          }
          for (const task of running.splice(0)) task.end();
          await scheduler.close({ drain: false });
        },
      ),
      { numRuns: 150 },
    );
  });

  it("keeps a backlogged tenant's tokens per minute within 5% of its quota over any 5-minute window", async () => {
    const QUOTA = 60_000;
    const WINDOW = 300_000;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 500, max: 3_000 }), { minLength: 20, maxLength: 20 }),
        fc.integer({ min: 1, max: 4 }),
        async (sizes, clients) => {
          const clock = new VirtualClock();
          const scheduler = createScheduler({
            clock,
            maxConcurrency: 8,
            tenants: { a: { tokensPerMinute: QUOTA } },
          });
          const starts: Array<[number, number]> = [];
          const nextTry = new Array<number>(clients).fill(0);
          const busy = new Array<boolean>(clients).fill(false);
          let n = 0;
          const send = (client: number): void => {
            const tokens = sizes[n++ % sizes.length]!;
            busy[client] = true;
            scheduler
              .run(
                () =>
                  new Promise<void>((resolve) => {
                    starts.push([clock.now(), tokens]);
                    clock.setTimer(resolve, 400);
                  }),
                { tenant: "a", tokens },
              )
              .then(
                () => {
                  busy[client] = false;
                },
                (error: { retryAfterMs: number }) => {
                  busy[client] = false;
                  nextTry[client] = clock.now() + error.retryAfterMs;
                },
              );
          };
          // Event by event: clients send when due, then the clock jumps to the next timer or retry time.
          while (clock.now() < 11 * 60_000) {
            for (let c = 0; c < clients; c++) if (!busy[c] && clock.now() >= nextTry[c]!) send(c);
            await flush(5);
            const due = nextTry.filter((at, c) => !busy[c] && at > clock.now());
            const next = Math.min(clock.nextTimerAt() ?? Number.POSITIVE_INFINITY, ...due);
            if (!Number.isFinite(next)) {
              throw new Error(`stuck at ${clock.now()}: busy ${busy.join(",")} next ${nextTry.join(",")}`);
            }
            clock.advanceTo(next);
            await flush(5);
          }
          for (let from = 0; from + WINDOW <= 10 * 60_000; from += 10_000) {
            const sum = starts
              .filter(([at]) => at >= from && at < from + WINDOW)
              .reduce((s, [, t]) => s + t, 0);
            const quota = (QUOTA * WINDOW) / 60_000;
            expect(sum).toBeLessThanOrEqual(quota * 1.05);
            expect(sum).toBeGreaterThanOrEqual(quota * 0.95);
          }
          // Let what still runs finish in virtual time, or close() would wait for it forever.
          let closed = false;
          const closing = scheduler.close().then(() => {
            closed = true;
          });
          while (!closed) {
            clock.advanceTo(clock.nextTimerAt() ?? clock.now());
            await flush(5);
          }
          await closing;
        },
      ),
      { numRuns: 5 },
    );
  }, 240_000);
});

import type { Permit } from "@llm-scheduler/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Instance, instance, sleep, useRedisServer, waitFor, waitForEmpty } from "./helpers.js";

const redis = useRedisServer({ admin: true });
let runs = 0;

type Command =
  | {
      readonly kind: "acquire";
      readonly on: number;
      readonly batch: boolean;
      readonly tenant: number;
      readonly cost: number;
      readonly abortAfterMs: number | null;
    }
  | { readonly kind: "release"; readonly k: number }
  | { readonly kind: "pause"; readonly ms: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("acquire" as const),
      on: fc.integer({ min: 0, max: 2 }),
      batch: fc.boolean(),
      tenant: fc.integer({ min: 0, max: 2 }),
      cost: fc.constantFrom(1, 1, 2),
      abortAfterMs: fc.option(fc.integer({ min: 0, max: 20 })),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("release" as const), k: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("pause" as const), ms: fc.integer({ min: 0, max: 15 }) }),
  },
);

/**
 * Three instances on one Redis under random acquires (some aborted while they wait), releases and
 * pauses, with real timing: what callers hold never exceeds the global limit, no task is granted twice,
 * and once everything is released Redis holds nothing.
 */
describe("three instances under random interleavings", () => {
  it("never exceed the global limit, grant each task at most once, and leak nothing", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 4 }),
        fc.array(command, { minLength: 10, maxLength: 40 }),
        async (max, commands) => {
          const prefix = `property${++runs}:`;
          const gateways: Instance[] = [0, 1, 2].map(() =>
            instance(
              redis.server.url,
              { prefix, leaseMs: 5_000 },
              {
                maxConcurrency: max,
                priorities: { interactive: { weight: 3 }, batch: { weight: 1 } },
              },
            ),
          );
          const held: Array<{ permit: Permit; cost: number }> = [];
          const granted = new Set<Permit>();
          let holding = 0;
          let peak = 0;
          let duplicate = false;
          const pending: Promise<unknown>[] = [];
          try {
            for (const c of commands) {
              if (c.kind === "acquire") {
                const controller = new AbortController();
                const cost = Math.min(c.cost, max);
                const acquired = gateways[c.on]!.scheduler.acquire({
                  priority: c.batch ? "batch" : "interactive",
                  tenant: `t${c.tenant}`,
                  cost,
                  signal: controller.signal,
                });
                pending.push(
                  acquired.then(
                    (permit) => {
                      if (granted.has(permit)) duplicate = true;
                      granted.add(permit);
                      holding += cost;
                      peak = Math.max(peak, holding);
                      held.push({ permit, cost });
                    },
                    () => {},
                  ),
                );
                if (c.abortAfterMs !== null) setTimeout(() => controller.abort(), c.abortAfterMs);
              } else if (c.kind === "release") {
                const chosen = held.splice(c.k % Math.max(1, held.length), 1)[0];
                if (chosen !== undefined) {
                  holding -= chosen.cost;
                  chosen.permit.release();
                }
              } else {
                await sleep(c.ms);
              }
            }
            // let everything that waits get its turn: release whatever is granted until nothing waits
            const done = Promise.all(pending);
            let settled = false;
            void done.then(() => {
              settled = true;
            });
            await waitFor(
              async () => {
                for (const { permit, cost } of held.splice(0)) {
                  holding -= cost;
                  permit.release();
                }
                await sleep(5);
                return settled && held.length === 0;
              },
              10_000,
              "every acquire settled",
            );
            expect(duplicate).toBe(false);
            expect(peak).toBeLessThanOrEqual(max);
            await waitForEmpty(redis.admin, prefix, 3_000);
            for (const gateway of gateways) expect(gateway.errors).toEqual([]);
          } finally {
            await Promise.all(gateways.map((gateway) => gateway.close()));
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});

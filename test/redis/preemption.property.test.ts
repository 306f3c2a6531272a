import type { SchedulerOptions, VirtualClock } from "@llm-scheduler/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  fitOp,
  fitScenario,
  type PreemptionWorld,
  type Seen,
  settleOp,
  settlesOnceScenario,
} from "../../packages/core/test/preemption-properties.js";
import { instance, scriptCalls, sleep, useRedisServer } from "./helpers.js";

const redis = useRedisServer({ admin: true });
let prefixes = 0;

/** Scheduler events that show something moved (a start, an ending, a preemption, a wait). */
const MOVES = ["queued", "started", "completed", "failed", "rejected", "overrun", "preempted"] as const;

/**
 * Two instances on one Redis under a fresh prefix, on the scenario's virtual clock (aging too). A step
 * has played out when its condition holds and nothing has moved for a few polls: no scheduler event
 * and no store call reaching Redis (a preemption travels as calls and pub/sub messages). The bound is
 * generous; a step that never plays out fails the scenario's own assertions after it.
 */
async function redisWorld(options: SchedulerOptions): Promise<PreemptionWorld> {
  const prefix = `preempt-property${++prefixes}:`;
  // heartbeats once a second: they are store calls too, and the steps settle between them
  const store = { prefix, leaseMs: 10_000, pollMs: 1_000, agingClock: "scheduler" as const };
  const gateways = [0, 1].map(() => instance(redis.server.url, store, options));
  let moves = 0;
  for (const { scheduler } of gateways) for (const event of MOVES) scheduler.on(event, () => moves++);
  return {
    schedulers: gateways.map((gateway) => gateway.scheduler),
    ordered: false,
    async settle(done = () => true) {
      const deadline = performance.now() + 10_000;
      let last = -1;
      let still = 0;
      while (still < 3 && performance.now() < deadline) {
        await sleep(10);
        const mark = moves + (await scriptCalls(redis.admin));
        still = mark === last && done() ? still + 1 : 0;
        last = mark;
      }
    },
    async close() {
      // `timeoutMs: 0` is a timer on the scenario's virtual clock: moving it on stops what still runs
      const closed = gateways.map(({ scheduler }) => scheduler.close({ timeoutMs: 0 }));
      (options.clock as VirtualClock).advance(1);
      await Promise.all(closed);
      for (const { store } of gateways) await store.close();
      const errors = gateways.flatMap((gateway) => gateway.errors);
      expect(errors).toEqual([]);
    },
  };
}

describe("preemption across two instances on one Redis (the memory store's properties)", () => {
  it("settles every task once, never exceeds the limit while victims wind down, respects maxPerTask", async () => {
    const seen: Seen = { preemptions: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(settleOp, { minLength: 15, maxLength: 30 }), (ops) =>
        settlesOnceScenario(ops, redisWorld, seen),
      ),
      { numRuns: 10 },
    );
    expect(seen.preemptions).toBeGreaterThan(5);
  }, 600_000);

  it("hands every victim's slot to a chat arrival, whatever tenant caps and token budget say", async () => {
    const seen: Seen = { preemptions: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(fitOp, { minLength: 15, maxLength: 30 }), (ops) =>
        fitScenario(ops, redisWorld, seen),
      ),
      { numRuns: 10 },
    );
    expect(seen.preemptions).toBeGreaterThan(5);
  }, 600_000);
});

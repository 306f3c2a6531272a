// Part: a fleet of 16 scheduler instances (processes) on one Redis: decisions per second, each
// instance's share of the work against its demand, and the global limit across all of them.
import { num } from "../lib/format.js";
import type { Part } from "../lib/part.js";
import { runFleet } from "../lib/redis-fleet.js";
import type { Goal } from "../lib/report.js";

const FAIRNESS = 0.1;

export const run: Part = async ({ quick, log }) => {
  const count = quick ? 4 : 16;
  // half the instances bring twice the demand of the others: shares must follow demand
  const loops = Array.from({ length: count }, (_, i) => (quick ? 4 : 8) * (1 + (i % 2)));
  const limit = quick ? 8 : 64;
  const holdMs = 1;
  const seconds = quick ? 1 : 5;
  log(`${count} instances, ${loops.reduce((a, b) => a + b, 0)} loops, limit ${limit}, ${seconds} s`);
  const fleet = await runFleet({ loops, limit, holdMs, seconds });
  const worst = Math.max(...fleet.shareOverDemand.map((share) => Math.abs(share - 1)));
  const goals: Goal[] = [
    {
      name: "global limit across the fleet",
      target: `never more than ${limit} held`,
      measured: `at most ${fleet.mostHeld} held`,
      holds: fleet.mostHeld <= limit,
    },
    {
      name: "each instance's share of the work within 10% of its share of the demand",
      target: `|share/demand - 1| <= ${FAIRNESS}`,
      measured: `worst ${num(worst * 100, 1)}%`,
      holds: worst <= FAIRNESS,
    },
  ];
  return {
    part: "fleet",
    title: `A fleet of ${count} scheduler instances on one Redis`,
    method: [
      `${count} Node processes, each one scheduler on a RedisStore, share one redis-server (started by the part) and a global limit of ${limit}.`,
      `Instance i runs ${loops[0]} or ${loops[1]} concurrent loops (alternating): acquire (priorities interactive/batch 1:3, 4 tenants, each with the same share of every instance's loops), hold ${holdMs} ms, release.`,
      "All start at one CLOCK_MONOTONIC time, set once the last one is ready, and count what starts and ends inside the window; a decision is an enqueue or a release.",
      "The most slots held at once comes from merging every instance's start and end times (taken after the grant and before the release).",
      "Redis CPU is INFO cpu over the whole run (warm-up included), divided by the decisions counted in the window.",
    ],
    tables: [
      {
        title: "Fleet",
        columns: [
          "instances",
          "decisions/s",
          "script calls/s",
          "Redis CPU per decision",
          "in scripts",
          "p50 acquire",
          "most held",
          "start-up spread",
        ],
        rows: [
          [
            String(count),
            num(fleet.decisionsPerSecond),
            num(fleet.scriptCallsPerSecond),
            `${num(fleet.redisCpuPerDecisionUs, 1)} µs`,
            `${num(fleet.scriptUsPerDecision, 1)} µs`,
            `${num(fleet.p50WaitUs / 1000, 2)} ms`,
            `${fleet.mostHeld} of ${limit}`,
            `${num(fleet.startSpreadMs)} ms`,
          ],
        ],
      },
      {
        title: "Share of the work over share of the demand, per instance",
        columns: ["instance", "loops", "cycles", "share / demand"],
        rows: fleet.instances.map((r, i) => [
          String(i),
          String(r.loops),
          num(r.cycles),
          num(fleet.shareOverDemand[i]!, 3),
        ]),
      },
    ],
    goals,
    notes: [
      "On a shared 2-core machine the processes compete for the CPU with each other and with Redis: the figures are of that machine, and vary with its load.",
    ],
    raw: {
      ...fleet,
      instances: fleet.instances,
    },
  };
};

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
  // the store's Lua as scripts (a Redis that refuses FUNCTION), as functions (the default), as scripts
  // (--quick: functions only)
  const byScripts = () => runFleet({ loops, limit, holdMs, seconds, lua: "scripts" });
  const scripts = quick ? [] : [await byScripts()];
  const fleet = await runFleet({ loops, limit, holdMs, seconds });
  if (!quick) scripts.push(await byScripts());
  const row = (lua: string, result: typeof fleet) => [
    lua,
    String(count),
    num(result.decisionsPerSecond),
    num(result.scriptCallsPerSecond),
    num(result.decisionsPerSecond / Math.max(1, result.scriptCallsPerSecond), 1),
    `${num(result.redisCpuPerDecisionUs, 1)} µs`,
    `${num(result.scriptUsPerDecision, 1)} µs`,
    `${num(result.p50WaitUs / 1000, 2)} ms`,
    `${result.mostHeld} of ${limit}`,
    `${num(result.startSpreadMs)} ms`,
  ];
  const worst = Math.max(...fleet.shareOverDemand.map((share) => Math.abs(share - 1)));
  const goals: Goal[] = [
    {
      name: "global limit across the fleet",
      target: `never more than ${limit} held`,
      measured: `at most ${Math.max(fleet.mostHeld, ...scripts.map((result) => result.mostHeld))} held`,
      holds: Math.max(fleet.mostHeld, ...scripts.map((result) => result.mostHeld)) <= limit,
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
      "Three runs: the store's Lua as scripts (EVALSHA, on a redis-server started with FUNCTION renamed away, as on Redis 6), as Redis Functions (FCALL, the default), and as scripts again; the shares table is from the functions run.",
    ],
    tables: [
      {
        title: "Fleet (run in this order)",
        columns: [
          "Lua as",
          "instances",
          "decisions/s",
          "calls/s",
          "decisions per call",
          "Redis CPU per decision",
          "in calls",
          "p50 acquire",
          "most held",
          "start-up spread",
        ],
        rows: [
          ...scripts.slice(0, 1).map((result) => row("scripts (EVALSHA)", result)),
          row("functions (FCALL)", fleet),
          ...scripts.slice(1).map((result) => row("scripts (EVALSHA)", result)),
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
      scripts: scripts.map((result) => ({ ...result, instances: undefined })),
      ...fleet,
      instances: fleet.instances,
    },
  };
};

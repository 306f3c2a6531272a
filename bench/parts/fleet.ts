// Part: a fleet of 16 scheduler instances (processes) on one Redis: decisions per second, each
// instance's share of the grants while every instance had tickets waiting (bench/lib/fleet-shares.ts),
// and the global limit across all of them.
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
  // long enough for some hundreds of grants per instance while all wait, on a loaded 2-core machine
  const seconds = quick ? 1 : 15;
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
    `${num(result.shares.worst * 100, 1)}% (±${num(result.sharesNoise * 100, 1)}%)`,
    `${num(result.shares.contendedUs / 1e4 / seconds, 0)}%`,
    `${result.refused} / ${result.storeErrors}`,
    `${num(result.startSpreadMs)} ms`,
  ];
  const runs = [fleet, ...scripts];
  const worst = Math.max(...runs.map((result) => result.shares.worst));
  const goals: Goal[] = [
    {
      name: "global limit across the fleet",
      target: `never more than ${limit} held`,
      measured: `at most ${Math.max(...runs.map((result) => result.mostHeld))} held`,
      holds: Math.max(...runs.map((result) => result.mostHeld)) <= limit,
    },
    {
      name: "while every instance has tickets waiting, each one's share of the grants within 10% of its share of the waiting (class by class)",
      target: `|grant share / waiting share - 1| <= ${FAIRNESS}, every run`,
      measured: `worst ${num(worst * 100, 1)}% (${runs.length === 1 ? "1 run" : `${runs.length} runs`}; by chance ±${num(Math.max(...runs.map((result) => result.sharesNoise)) * 100, 1)}%)`,
      holds: worst <= FAIRNESS,
    },
  ];
  return {
    part: "fleet",
    title: `A fleet of ${count} scheduler instances on one Redis`,
    method: [
      `${count} Node processes, each one scheduler on a RedisStore, share one redis-server (started by the part) and a global limit of ${limit}.`,
      `Instance i runs ${loops[0]} or ${loops[1]} concurrent loops (alternating): acquire (priorities interactive/batch 1:3, 4 tenants, each with the same share of every instance's loops), hold ${holdMs} ms, release.`,
      `All start at one CLOCK_MONOTONIC time, set once the last one is ready, run for ${seconds} s and count what starts and ends inside that window; a decision is an enqueue or a release.`,
      "Fairness, class by class (a class is a priority and tenant: loop i asks as tenant t(i mod 4), interactive when i mod 4 is 0): only while every instance has a ticket waiting, each instance's share of a class's grants over its share of the class's waiting (tickets times time); the classes added up weighted by their waiting. A store that serves tickets in arrival order whoever sent them gives 1; one that favours an instance gives it more (test/bench/fleet-shares.test.ts). The times are the instance's own: one slow to see its grants shows less than 1, most in the class that waits least.",
      "By chance: the run cut into five equal spans, each instance's ratio in each, the standard error of its mean (root mean square over the instances); a store serving every instance alike still shows about twice that in the worst of 16 instances.",
      "A call without a reply in commandTimeoutMs (2 s) makes an instance's store refuse acquires until Redis answers again: the instance waits as told and asks again; the refusals and the scheduler's error events are counted.",
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
          "worst share (± by chance)",
          "contended",
          "refused / errors",
          "start-up spread",
        ],
        rows: [
          ...scripts.slice(0, 1).map((result) => row("scripts (EVALSHA)", result)),
          row("functions (FCALL)", fleet),
          ...scripts.slice(1).map((result) => row("scripts (EVALSHA)", result)),
        ],
      },
      {
        title:
          "By class, functions run: its share of the waiting while every instance waited, and the worst instance in it",
        columns: ["class", "share of the waiting", "worst share / waiting"],
        rows: fleet.shares.classes.map((share, k) => [
          k === 0 ? "interactive, t0" : `batch, t${k}`,
          `${num(share.waitShare * 100, 1)}%`,
          `${num(share.worst * 100, 1)}%`,
        ]),
      },
      {
        title:
          "Per instance, functions run: share of the grants while every instance waited, over share of the waiting (classes weighted by their waiting)",
        columns: [
          "instance",
          "loops",
          "event-loop delay",
          "mean acquire",
          "cycles",
          "cycles / loops",
          "grants (contended)",
          "grant share",
          "waiting share",
          "grant / waiting",
        ],
        rows: fleet.instances.map((r, i) => {
          const share = fleet.shares.instances[i]!;
          return [
            String(i),
            String(r.loops),
            `${num(r.loopDelayMs, 1)} ms`,
            `${num(fleet.meanWaitUs[i]! / 1000, 2)} ms`,
            num(r.cycles),
            num(fleet.cyclesOverLoops[i]!, 3),
            num(share.grants),
            `${num(share.grantShare * 100, 2)}%`,
            `${num(share.waitShare * 100, 2)}%`,
            num(share.ratio, 3),
          ];
        }),
      },
    ],
    goals,
    notes: [
      "On a shared 2-core machine the processes compete for the CPU with each other and with Redis: the figures are of that machine, and vary with its load.",
      "cycles / loops is the share of the work over the share of the loops: a process that gets less CPU asks again later after each release and gets less, although the store serves every ticket in turn.",
    ],
    raw: {
      scripts: scripts.map((result) => ({ ...result, instances: undefined })),
      ...fleet,
      instances: fleet.instances,
    },
  };
};

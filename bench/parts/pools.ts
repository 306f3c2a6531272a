// Part 13: pools of replicas in virtual time: prefix affinity against round-robin on a shared-prefix
// workload, a replica at half speed, and whether routing changes who goes next.
import { num, ratio } from "../lib/format.js";
import type { Part } from "../lib/part.js";
import type { Goal } from "../lib/report.js";
import { type KilledRun, runKilled } from "../pools/killed.js";
import { type PoolRun, runPool, slowShare, tenantDoneMs } from "../pools/measure.js";
import {
  ENGINE_FED_LIMITS,
  halfSpeedScenario,
  LOAD_FACTOR,
  sharedPrefixScenario,
  whoGoesNextScenario,
} from "../pools/scenarios.js";

const ms = (value: number): string => (Number.isFinite(value) ? `${num(value)} ms` : "never");
const pct = (value: number): string => `${(100 * value).toFixed(1)}%`;
/** Within 15% of half: the goal for a replica at half speed. */
const nearHalf = (share: number): boolean => Math.abs(share - 0.5) <= 0.15 * 0.5;
/** Routing must not change who goes next: within 5% (or 10 ms) of the run without a pool. */
const same = (pooled: number, single: number): boolean =>
  Math.abs(pooled - single) <= Math.max(10, 0.05 * single);

export const run: Part = async ({ quick, log }) => {
  const started = performance.now();
  const shared = {
    prefix: await runPool(`prefix (loadFactor ${LOAD_FACTOR})`, sharedPrefixScenario("prefix", quick)),
    prefixDefault: await runPool(
      "prefix (loadFactor 1.25, default)",
      sharedPrefixScenario("prefix", quick, 1.25),
    ),
    noHeadroom: await runPool(
      "prefix, replica limits 16 (no headroom)",
      sharedPrefixScenario("prefix", quick, LOAD_FACTOR, { limit: 16 }),
    ),
    leastLoaded: await runPool("least-loaded", sharedPrefixScenario("least-loaded", quick)),
    roundRobin: await runPool("round-robin", sharedPrefixScenario("round-robin", quick)),
  };
  log(
    `shared prefix: ${Object.values(shared)
      .map((r) => `${r.label} ${ms(r.ttftMeanMs)}`)
      .join(", ")}`,
  );
  const half = {
    leastLoaded: await runPool("least-loaded", halfSpeedScenario("least-loaded", quick)),
    prefix: await runPool("prefix, equal limits, speed measured", halfSpeedScenario("prefix", quick)),
    prefixAdaptive: await runPool(
      "prefix, adaptive limits fed by engine queues, speed measured",
      halfSpeedScenario("prefix", quick, 24, ENGINE_FED_LIMITS),
    ),
    prefixUnmeasured: await runPool(
      "prefix, equal limits, speed: false",
      halfSpeedScenario("prefix", quick, 24, undefined, false),
    ),
    prefixHalved: await runPool(
      "prefix, slow replica's limit 12, speed: false",
      halfSpeedScenario("prefix", quick, 12, undefined, false),
    ),
    roundRobin: await runPool("round-robin", halfSpeedScenario("round-robin", quick)),
  };
  log(
    `half speed: ${Object.values(half)
      .map((r) => `${r.label} ${slowShare(r).toFixed(3)}`)
      .join(", ")}`,
  );
  const single = await runPool("one server of 32", whoGoesNextScenario(undefined, quick));
  const pooled = [
    await runPool("4 x 8, prefix", whoGoesNextScenario("prefix", quick)),
    await runPool("4 x 8, least-loaded", whoGoesNextScenario("least-loaded", quick)),
    await runPool("4 x 8, round-robin", whoGoesNextScenario("round-robin", quick)),
  ];
  const loaded = [
    await runPool("one server of 32, slowdown 1", whoGoesNextScenario(undefined, quick, 1)),
    await runPool("4 x 8, prefix, slowdown 1", whoGoesNextScenario("prefix", quick, 1)),
  ];
  const seconds = (performance.now() - started) / 1000;
  const killedRequests = quick ? 60 : 300;
  const killed = await runKilled("retries 2 (default)", killedRequests, 2);
  const killedPeer = await runKilled("retries 0 (peer)", killedRequests, 0);
  log(
    `replica killed: ${[killed, killedPeer].map((r) => `${r.label} ${JSON.stringify(r.outcomes)}`).join(", ")}`,
  );

  const ttftGain = shared.roundRobin.ttftMeanMs / shared.prefix.ttftMeanMs;
  const throughputGain = shared.prefix.throughputPerSec / shared.roundRobin.throughputPerSec;
  const wait = (r: PoolRun) => r.result.interactive.waitMs.p95;
  const order = pooled.map((r) => ({
    run: r,
    wait: same(wait(r), wait(single)),
    tenants: ["etl", "indexer"].every((t) => same(tenantDoneMs(r, t), tenantDoneMs(single, t))),
  }));
  const shareGoal = (label: string, r: PoolRun): Goal => ({
    name: `one replica at half speed, ${label}: its share of requests over a healthy one's`,
    target: "0.50 ± 15%",
    measured: `${slowShare(r).toFixed(3)} (round-robin ${slowShare(half.roundRobin).toFixed(3)})`,
    holds: nearHalf(slowShare(r)),
  });
  const goals: Goal[] = [
    {
      name: "shared prefix, 8 replicas, heavy load: mean TTFT, round-robin over prefix (same run)",
      target: ">= 10x",
      measured: `${ratio(ttftGain)} (${ms(shared.prefix.ttftMeanMs)} vs ${ms(shared.roundRobin.ttftMeanMs)})`,
      holds: ttftGain >= 10,
    },
    {
      name: "shared prefix: throughput, prefix over round-robin (same run)",
      target: ">= 1.30x",
      measured: `${ratio(throughputGain)} (${shared.prefix.throughputPerSec.toFixed(1)}/s vs ${shared.roundRobin.throughputPerSec.toFixed(1)}/s)`,
      holds: throughputGain >= 1.3,
    },
    shareGoal("least-loaded", half.leastLoaded),
    shareGoal("prefix, equal fixed limits, speed measured (default)", half.prefix),
    shareGoal("prefix, adaptive limits fed by engine queues, speed measured", half.prefixAdaptive),
    shareGoal("prefix, speed: false, its limit halved by hand", half.prefixHalved),
    {
      name: `a replica killed mid-run (real time, ${killedRequests} streams over 4 replicas): requests that had not received a byte and failed`,
      target: "0",
      measured: `${killed.outcomes["failed-before-bytes"]} (${killed.failedAttempts} attempts failed on the dead replica and moved; ${killed.outcomes["cut-after-bytes"]} cut after their first bytes; without retries, same run: ${killedPeer.outcomes["failed-before-bytes"]} failed)`,
      holds: killed.outcomes["failed-before-bytes"] === 0,
    },
    ...order.map(({ run: r, wait: waitHolds, tenants }) => ({
      name: `who goes next, ${r.label}: interactive p95 wait and each batch tenant's completion as without a pool`,
      target: "within 5% or 10 ms",
      measured: `wait p95 ${ms(wait(r))} vs ${ms(wait(single))}; etl ${ratio(tenantDoneMs(r, "etl") / tenantDoneMs(single, "etl"))}, indexer ${ratio(tenantDoneMs(r, "indexer") / tenantDoneMs(single, "indexer"))}`,
      holds: waitHolds && tenants,
    })),
  ];
  const sharedRow = (r: PoolRun) => [
    r.label,
    ms(r.ttftMeanMs),
    ms(r.ttftP95Ms),
    `${r.throughputPerSec.toFixed(1)} /s`,
    pct(r.prefixHitRate),
    ratio(shared.roundRobin.ttftMeanMs / r.ttftMeanMs),
    ratio(r.throughputPerSec / shared.roundRobin.throughputPerSec),
  ];
  const halfRow = (r: PoolRun) => {
    const replicas = r.result.replicas ?? [];
    const slow = replicas.find((x) => x.id === "slow");
    return [
      r.label,
      slowShare(r).toFixed(3),
      limitsOf(r),
      String(slow?.completed ?? 0),
      replicas
        .filter((x) => x.id !== "slow")
        .map((x) => x.completed)
        .join(" "),
      ms(r.ttftMeanMs),
    ];
  };
  const orderRow = (r: PoolRun) => [
    r.label,
    ms(wait(r)),
    ms(r.result.interactive.ttftMs.p95),
    `${(tenantDoneMs(r, "etl") / 1000).toFixed(1)} s`,
    `${(tenantDoneMs(r, "indexer") / 1000).toFixed(1)} s`,
    `${(r.result.batch.makespanMs / 1000).toFixed(1)} s`,
  ];
  return {
    part: "pools",
    title: "Pools of replicas: routing in virtual time",
    method: [
      "Every run is the simulator (packages/simulator) in virtual time: the real scheduler on a VirtualClock in front of simulated replicas, each with its own engine (the upstream-sim latency model), limit and LRU prefix cache of 16-token KV blocks, routed by @llm-scheduler/pool's routers. A cached system prompt skips its prefill.",
      `Shared prefix: 8 replicas of 16 sequences (30 ms + 0.25 ms a prompt token of prefill, 20 ms a token, twice as slow with a full batch), each with a cache of 160,000 tokens and a pool limit of 24 (requests past 16 wait in its engine); the scheduler lets 128 in flight. 256 users, each with a 4,000-token system prompt of its own, send 46 chat requests a second (Poisson) for ${quick ? 20 : 180} s; 50-150 more prompt tokens, 20-80 tokens answered; clients never give up. TTFT counts from the send, queue wait included; throughput is answered requests per second from the first sent to the last answered.`,
      "Half speed: the same pool with one replica at half speed (every duration doubled), 40 requests a second; share = the slow replica's completed requests over the mean of the others'. The adaptive run gives every replica a limit from 4 to 24 (starting at 24), fed each second by its engine's queue as the pool's `signals.limit` does (no latency guard: the simulated engines slow smoothly with their batch). Speed measured: the pool's default `speed` estimates (tokens after the first over the time since it, per request, relative to the median, within 0.25-1) weigh each limit in prefix's load bound; `speed: false` runs without them.",
      `Replica killed: ${killedRequests} streamed chat completions (20 tokens, 10 ms a token) sent 40 ms apart (below what three replicas serve) through a real pool (least-loaded, default health: three failures in a row eject) over 4 upstream-sim replicas of 4 sequences on loopback; the first replica crashes a third of the way in (connections dropped, port closed). Outcomes as the client sees them, a response's status line counting as its first byte (it cannot move after it); the peer is the same run with \`retries: 0\`.`,
      "Who goes next: chat (4/s) beside two batch floods (1,000 and 500 items), behind one server of 32 sequences or 4 replicas of 8, with a step time that does not depend on how many sequences are busy and no prefix cache, so the two differ only in where each request runs.",
    ],
    tables: [
      {
        title: "Shared prefix, 8 replicas, heavy load",
        columns: [
          "routing",
          "TTFT mean",
          "TTFT p95",
          "throughput",
          "prefix cache hits",
          "TTFT gain",
          "throughput gain",
        ],
        rows: Object.values(shared).map(sharedRow),
      },
      {
        title: "One replica at half speed (its share of requests over a healthy one's)",
        columns: [
          "routing",
          "share",
          "limits (slow; healthy) lowest-highest",
          "slow completed",
          "healthy completed",
          "TTFT mean",
        ],
        rows: Object.values(half).map(halfRow),
      },
      {
        title: "A replica killed mid-run (real time, streamed answers)",
        columns: [
          "pool",
          "complete",
          "cut after bytes",
          "failed before a byte",
          "attempts failed on a replica",
        ],
        rows: [killed, killedPeer].map((r: KilledRun) => [
          r.label,
          String(r.outcomes.complete),
          String(r.outcomes["cut-after-bytes"]),
          String(r.outcomes["failed-before-bytes"]),
          String(r.failedAttempts),
        ]),
      },
      {
        title: "Who goes next, with and without a pool (same capacity)",
        columns: [
          "gateway",
          "interactive wait p95",
          "TTFT p95",
          "etl done after",
          "indexer done after",
          "batch makespan",
        ],
        rows: [single, ...pooled, ...loaded].map(orderRow),
        note: "the slowdown 1 rows are information: a full batch of 8 slows a replica as much as a full batch of 32 slows the one server, so spreading requests over replicas changes their speed, not their order",
      },
    ],
    goals,
    notes: [
      `${num(seconds, 1)} s of real time for every run.`,
      "Without speed estimates, prefix affinity gives a slow replica with an equal limit the keys it can keep up with: its cache hits keep its requests short, so it takes more than half a healthy replica's share; engine queues do not correct that (decision 0058). Its measured speed (about half the median) halves its weight in the load bound, so it spills keys sooner (decision 0059); halving its limit by hand does the same without estimates.",
    ],
    raw: {
      shared: Object.fromEntries(Object.entries(shared).map(([k, r]) => [k, summary(r)])),
      half: Object.fromEntries(
        Object.entries(half).map(([k, r]) => [k, { share: slowShare(r), replicas: r.result.replicas }]),
      ),
      order: [single, ...pooled, ...loaded].map((r) => ({
        label: r.label,
        waitP95: wait(r),
        tenants: r.result.tenants,
      })),
    },
  };
};

/** The slow replica's limit range over the run, then the healthy ones' together. */
function limitsOf(r: PoolRun): string {
  const replicas = r.result.replicas ?? [];
  const range = (list: typeof replicas) => {
    const low = Math.min(...list.map((x) => x.lowestLimit));
    const high = Math.max(...list.map((x) => x.highestLimit));
    return low === high ? String(low) : `${low}-${high}`;
  };
  return `${range(replicas.filter((x) => x.id === "slow"))}; ${range(replicas.filter((x) => x.id !== "slow"))}`;
}

function summary(r: PoolRun) {
  return {
    ttftMeanMs: r.ttftMeanMs,
    ttftP95Ms: r.ttftP95Ms,
    throughputPerSec: r.throughputPerSec,
    prefixHitRate: r.prefixHitRate,
    replicas: r.result.replicas,
  };
}

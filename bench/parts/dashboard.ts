// Part: what the live dashboard costs. Its one listener on run() throughput, and the price of one
// snapshot (what each open stream pays once per interval), both measured in this run.
import { createScheduler, type Scheduler, type TaskContext } from "@llm-scheduler/core";
import { createDashboard, type ReplicasLike } from "@llm-scheduler/dashboard";
import { createPool } from "@llm-scheduler/pool";
import { num, ratio, spread } from "../lib/format.js";
import type { Part } from "../lib/part.js";
import { median, summarize } from "../lib/stats.js";
import { timeIt } from "../lib/timing.js";

const GOAL_RATIO = 0.95;
const PRIORITIES = {
  interactive: { weight: 5, reserved: 1, maxQueue: 100_000 },
  batch: { weight: 1, maxQueue: 100_000 },
};

type Mode = "without" | "unwatched" | "watched";
const MODES: readonly Mode[] = ["without", "unwatched", "watched"];

async function noOpRun(size: number, mode: Mode): Promise<number> {
  const scheduler = createScheduler({ maxConcurrency: 8, priorities: PRIORITIES });
  const dashboard = mode === "without" ? undefined : createDashboard({ scheduler, access: "open" });
  // A request makes the dashboard listen, as an open page does; without one it only waits.
  if (mode === "watched") await dashboard!(new Request("http://x/dashboard/api/snapshot"));
  const elapsed = await timeIt(async () => {
    const pending = new Array<Promise<unknown>>(size);
    for (let i = 0; i < size; i++) {
      const priority = i % 4 === 0 ? "interactive" : "batch";
      pending[i] = scheduler.run(() => Promise.resolve(i), { priority, tenant: `t${i % 16}` });
    }
    await Promise.all(pending);
  });
  dashboard?.close();
  await scheduler.close();
  return (size / elapsed) * 1000;
}

/** Holds its slot until the scheduler aborts it (at close). */
function untilAborted({ signal }: TaskContext): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
}

/** A scheduler holding `queued` tasks from `tenants` tenants, 8 running: what a busy dashboard reads. */
function busyScheduler(queued: number, tenants: number): Scheduler {
  const scheduler = createScheduler({
    maxConcurrency: 8,
    priorities: { interactive: { weight: 5, maxQueue: queued }, batch: { weight: 1, maxQueue: queued } },
  });
  for (let i = 0; i < queued + 8; i++) {
    const priority = i % 4 === 0 ? "interactive" : "batch";
    scheduler.run(untilAborted, { priority, tenant: `tenant-${i % tenants}` }).catch(() => {});
  }
  return scheduler;
}

async function snapshotMicros(scheduler: Scheduler, count: number, replicas?: ReplicasLike): Promise<number> {
  const dashboard = createDashboard({ scheduler, replicas, access: "open", historyMs: 0 });
  const request = new Request("http://x/dashboard/api/snapshot");
  for (let i = 0; i < 20; i++) await (await dashboard(request)).text(); // warm-up
  const elapsed = await timeIt(async () => {
    for (let i = 0; i < count; i++) await (await dashboard(request)).text();
  });
  dashboard.close();
  return (elapsed * 1000) / count;
}

/**
 * One snapshot of a pool's scheduler without and with its replicas shown, alternating, in this run: a
 * pool of `size` replicas whose URLs are never fetched (no checks, no scrapes).
 */
async function poolSnapshotRow(size: number, count: number, rounds: number): Promise<string[]> {
  const pool = createPool({
    replicas: Array.from({ length: size }, (_, i) => ({ url: `http://10.0.0.${i}:8000`, maxConcurrency: 8 })),
    health: false,
    signals: false,
  });
  const without: number[] = [];
  const withReplicas: number[] = [];
  for (let round = 0; round < rounds; round++) {
    without.push(await snapshotMicros(pool.scheduler, count));
    withReplicas.push(await snapshotMicros(pool.scheduler, count, pool));
  }
  await pool.close();
  const [plain, shown] = [median(without), median(withReplicas)];
  return [num(size), num(plain, 1), num(shown, 1), `${num((shown * 16) / 10_000, 2)}%`];
}

export const run: Part = async ({ quick, runs: asked, log }) => {
  const size = quick ? 2_000 : 20_000;
  const runs = asked ?? (quick ? 2 : 7);
  const rates: Record<Mode, number[]> = { without: [], unwatched: [], watched: [] };
  for (let round = 0; round < runs + 1; round++) {
    // Rotate the order each round, so that no mode always runs on a warmer heap.
    for (let k = 0; k < MODES.length; k++) {
      const mode = MODES[(k + round) % MODES.length]!;
      const rate = await noOpRun(size, mode);
      if (round > 0) rates[mode].push(rate); // round 0 warms up
    }
    if (round > 0) log(`round ${round}/${runs} done`);
  }
  const ratioOf = (mode: Mode) => median(rates[mode].map((rate, i) => rate / rates.without[i]!));
  const unwatched = ratioOf("unwatched");
  const watched = ratioOf("watched");
  const sizes = quick
    ? [[100, 10]]
    : [
        [100, 10],
        [10_000, 1_000],
        [50_000, 5_000],
      ];
  const snapshotRows: string[][] = [];
  const snapshotCosts: Record<string, number> = {};
  for (const [queued, tenants] of sizes as Array<[number, number]>) {
    const scheduler = busyScheduler(queued, tenants);
    const micros = await snapshotMicros(scheduler, quick ? 50 : 500);
    snapshotCosts[`${queued}/${tenants}`] = micros;
    snapshotRows.push([num(queued), num(tenants), num(micros, 1), `${num((micros * 16) / 10_000, 2)}%`]);
    // The scheduler's timers are unref()ed; a plain timer keeps this process up while it closes.
    let keepAlive: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      scheduler.close({ timeoutMs: 0 }).catch(() => {}),
      new Promise((resolve) => (keepAlive = setTimeout(resolve, 10_000))),
    ]);
    clearTimeout(keepAlive);
  }
  const poolRows: string[][] = [];
  for (const size of quick ? [8] : [8, 64]) {
    poolRows.push(await poolSnapshotRow(size, quick ? 50 : 500, quick ? 1 : 5));
  }
  return {
    part: "dashboard",
    title: "Dashboard: cost on run() throughput, and per snapshot",
    method: [
      `Throughput: N = ${size} no-op tasks submitted at once (two priorities, 16 tenants, concurrency 8) into a fresh scheduler, without a dashboard, with one that nobody watches, and with one that was just asked for a snapshot (so it listens to \`started\`, as with an open page); 1 warm-up round, then ${runs} rounds, the order rotating each round, gc before each run.`,
      "The ratio is the median over rounds of the rate divided by the rate without a dashboard, in the same round.",
      "Snapshot: GET path/api/snapshot through the handler (metrics(), windowed wait quantiles, JSON), on a scheduler holding the given queue and tenants; each open live stream pays this once per interval (1 s by default).",
    ],
    tables: [
      {
        title: "run() throughput, tasks per second, median (min–max)",
        columns: ["scheduler", "tasks/s", "vs without"],
        rows: [
          ["without a dashboard", spread(summarize(rates.without)), ratio(1)],
          ["dashboard, nobody watching", spread(summarize(rates.unwatched)), ratio(unwatched)],
          ["dashboard, watched", spread(summarize(rates.watched)), ratio(watched)],
        ],
        note: "Watched: most of the cost is the core building a `started` event per task once anything listens (any exporter pays it); the dashboard's own listener adds a clock read and two array writes.",
      },
      {
        title: "One snapshot",
        columns: ["queued", "tenants", "µs per snapshot", "CPU at 16 streams, 1 s"],
        rows: snapshotRows,
      },
      {
        title: "One snapshot of a pool, without and with its replicas (`replicas: pool`), median",
        columns: ["replicas", "µs without", "µs with replicas", "CPU at 16 streams, 1 s"],
        rows: poolRows,
        note: "With replicas, a snapshot also reads `pool.metrics()` (the scheduler's metrics again, plus one row per replica) and carries the rows.",
      },
    ],
    goals: [
      {
        name: "run() throughput with a dashboard nobody watches",
        target: `>= ${ratio(GOAL_RATIO)} of without`,
        measured: ratio(unwatched),
        holds: unwatched >= GOAL_RATIO,
      },
    ],
    notes: [],
    raw: { tasksPerSecond: rates, snapshotMicros: snapshotCosts },
  };
};

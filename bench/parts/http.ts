// Part 4: HTTP overhead of schedulerMiddleware() while slots are free, against the bare framework.
// Servers run in this process; autocannon runs in a separate one (probes/load.ts).
import { FRAMEWORKS, type Framework, type Running, start } from "../http/apps.js";
import { num, ratio, spread } from "../lib/format.js";
import { runProbe } from "../lib/node-child.js";
import type { Part } from "../lib/part.js";
import type { Goal } from "../lib/report.js";
import { median, summarize } from "../lib/stats.js";
import type { LoadResult } from "../probes/load.js";

const GOAL_RATIO = 0.95;
const GOAL_P99_MS = 1;
const CONNECTIONS = 10;
/** Far more slots than connections: no request ever waits, so only the middleware's own cost shows. */
const SLOTS = 64;

interface Config {
  readonly framework: Framework;
  readonly scheduled: boolean;
  readonly server: Running;
  readonly results: LoadResult[];
}

export const run: Part = async ({ quick, runs: asked, log }) => {
  const runs = asked ?? (quick ? 1 : 5);
  const seconds = quick ? 0.5 : 3;
  const warmSeconds = quick ? 0 : 1;
  const configs: Config[] = [];
  for (const framework of FRAMEWORKS) {
    for (const scheduled of [false, true]) {
      configs.push({
        framework,
        scheduled,
        server: await start(framework, scheduled ? SLOTS : null),
        results: [],
      });
    }
  }
  try {
    if (warmSeconds > 0) {
      await runProbe<LoadResult[]>("load", [
        String(warmSeconds),
        String(CONNECTIONS),
        ...configs.map((c) => c.server.url),
      ]);
      log("warm-up done");
    }
    for (let round = 0; round < runs; round++) {
      // Rotate the order each round; one load process per round runs every server in turn.
      const order = configs.map((_, index) => configs[(index + round) % configs.length]!);
      const results = await runProbe<LoadResult[]>("load", [
        String(seconds),
        String(CONNECTIONS),
        ...order.map((config) => config.server.url),
        // A smoke run only checks that every server answers: load them all at once.
        ...(quick ? ["--parallel"] : []),
      ]);
      results.forEach((result, index) => {
        order[index]!.results.push(result);
      });
      log(`round ${round + 1}/${runs} done`);
    }
  } finally {
    for (const config of configs) await config.server.close();
  }
  return report(configs, { runs, seconds, warmSeconds });
};

function report(configs: Config[], settings: { runs: number; seconds: number; warmSeconds: number }) {
  const goals: Goal[] = [];
  const notes: string[] = [];
  const rows: string[][] = [];
  const latencyRows: string[][] = [];
  for (const framework of FRAMEWORKS) {
    const bare = configs.find((c) => c.framework === framework && !c.scheduled)!;
    const scheduled = configs.find((c) => c.framework === framework && c.scheduled)!;
    const paired = bare.results.map((result, index) => ({
      ratio: scheduled.results[index]!.requestsPerSecond / result.requestsPerSecond,
      p99: scheduled.results[index]!.p99 - result.p99,
    }));
    const rpsRatio = median(paired.map((pair) => pair.ratio));
    const p99Delta = median(paired.map((pair) => pair.p99));
    const started = scheduled.server.scheduler?.metrics().started ?? 0;
    const failures = [...bare.results, ...scheduled.results].reduce(
      (sum, result) => sum + result.failures,
      0,
    );
    if (failures > 0) notes.push(`${framework}: ${failures} responses were not 2xx or failed.`);
    if (started === 0)
      notes.push(`${framework}: the scheduler saw no request; the middleware was not in the path.`);
    const rps = (config: Config) =>
      spread(summarize(config.results.map((result) => result.requestsPerSecond)));
    rows.push([framework, rps(bare), rps(scheduled), ratio(rpsRatio)]);
    const lat = (config: Config, key: "p50" | "p99") =>
      num(median(config.results.map((result) => result[key])), 2);
    latencyRows.push([
      framework,
      lat(bare, "p50"),
      lat(scheduled, "p50"),
      lat(bare, "p99"),
      lat(scheduled, "p99"),
      `${p99Delta >= 0 ? "+" : ""}${p99Delta.toFixed(2)}`,
    ]);
    goals.push(
      {
        name: `${framework}: req/s with the middleware vs bare`,
        target: `>= ${GOAL_RATIO}x`,
        measured: ratio(rpsRatio),
        holds: rpsRatio >= GOAL_RATIO && failures === 0 && started > 0,
      },
      {
        name: `${framework}: p99 latency added by the middleware`,
        target: `<= +${GOAL_P99_MS} ms`,
        measured: `${p99Delta >= 0 ? "+" : ""}${p99Delta.toFixed(2)} ms`,
        holds: p99Delta <= GOAL_P99_MS && failures === 0 && started > 0,
      },
    );
  }
  return {
    part: "http",
    title: "HTTP: schedulerMiddleware() against the bare framework",
    method: [
      `Express 5, Koa 3 and Hono 4 (on @hono/node-server) each serve GET /v1/ping with a small JSON body, bare and behind schedulerMiddleware() with a scheduler of ${SLOTS} slots (more than the ${CONNECTIONS} connections, so no request waits).`,
      `The six servers run in one process; autocannon (${CONNECTIONS} connections, ${settings.seconds} s per server) runs in a separate process, one per round, visiting every server in an order that rotates each round.`,
      `${settings.warmSeconds > 0 ? `A ${settings.warmSeconds} s warm-up per server, then ` : ""}${settings.runs} round(s). The ratio and the p99 difference are medians over rounds of the paired figures (same round, same framework).`,
    ],
    tables: [
      {
        title: "Requests per second, median (min–max)",
        columns: ["framework", "bare", "with schedulerMiddleware", "ratio"],
        rows,
      },
      {
        title: "Latency (ms), median over rounds",
        columns: ["framework", "bare p50", "scheduled p50", "bare p99", "scheduled p99", "p99 added"],
        rows: latencyRows,
      },
    ],
    goals,
    notes,
    raw: {
      ...settings,
      connections: CONNECTIONS,
      slots: SLOTS,
      results: configs.map((config) => ({
        framework: config.framework,
        scheduled: config.scheduled,
        runs: config.results,
      })),
    },
  };
}

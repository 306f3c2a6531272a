// Part 4: HTTP overhead of schedulerMiddleware() while slots are free, against the bare framework,
// against a middleware that does nothing, and against the route handler wrapped in p-queue. Servers run in this process; autocannon runs in a separate
// one (probes/load.ts).
import { FRAMEWORKS, type Framework, type Mode, modesOf, PATH, type Running, start } from "../http/apps.js";
import { CpuWindows } from "../http/cpu-windows.js";
import { loadInMemory } from "../http/in-memory.js";
import { num, ratio, spread } from "../lib/format.js";
import { runProbe } from "../lib/node-child.js";
import type { Part } from "../lib/part.js";
import type { Goal } from "../lib/report.js";
import { median, summarize } from "../lib/stats.js";
import type { LoadResult } from "../probes/load.js";

/** Server CPU the middleware may add per request over a no-op middleware mounted the same way. */
const GOAL_CPU_MICROS = 3;
const GOAL_P99_MS = 1;
const CONNECTIONS = 10;
/** Far more slots than connections: no request ever waits, so only the middleware's own cost shows. */
const SLOTS = 64;

interface Config {
  readonly framework: Framework;
  readonly mode: Mode;
  readonly server: Running;
  readonly results: LoadResult[];
  /** Server CPU per request (µs, this process, all threads), one per round; empty in quick runs. */
  readonly cpu: number[];
  /** CPU per request (µs) over in-memory connections (`in-memory.ts`), one per round. */
  readonly memory: number[];
  /** Answers that were not 2xx over in-memory connections. */
  memoryFailures: number;
}

/** Requests per server per round over in-memory connections. */
const MEMORY_REQUESTS = 20_000;

/** Each config's CPU per request over in-memory connections, in `order`. */
async function measureInMemory(order: readonly Config[], requests: number): Promise<void> {
  for (const config of order) {
    const result = await loadInMemory((socket) => config.server.connect(socket), PATH, requests, CONNECTIONS);
    config.memory.push(result.cpuMicros);
    config.memoryFailures += result.failures;
  }
}

export const run: Part = async ({ quick, runs: asked, log }) => {
  const runs = asked ?? (quick ? 1 : 5);
  const seconds = quick ? 0.5 : 3;
  const warmSeconds = quick ? 0 : 1;
  const configs: Config[] = [];
  const windows = new CpuWindows<Config>();
  for (const framework of FRAMEWORKS) {
    for (const mode of modesOf(framework)) {
      const config: Config = {
        framework,
        mode,
        server: await start(framework, mode, SLOTS),
        results: [],
        cpu: [],
        memory: [],
        memoryFailures: 0,
      };
      config.server.onRequest(() => windows.serving(config));
      configs.push(config);
    }
  }
  try {
    if (warmSeconds > 0) {
      await runProbe<LoadResult[]>("load", [
        String(warmSeconds),
        String(CONNECTIONS),
        ...configs.map((c) => c.server.url),
      ]);
      for (const config of configs) {
        await loadInMemory((socket) => config.server.connect(socket), PATH, MEMORY_REQUESTS / 4, CONNECTIONS);
      }
      log("warm-up done");
    }
    for (let round = 0; round < runs; round++) {
      // Rotate the order each round; one load process per round runs every server in turn.
      const order = configs.map((_, index) => configs[(index + round) % configs.length]!);
      windows.reset();
      const results = await runProbe<LoadResult[]>("load", [
        String(seconds),
        String(CONNECTIONS),
        ...order.map((config) => config.server.url),
        // A smoke run only checks that every server answers: load them all at once.
        ...(quick ? ["--parallel"] : []),
      ]);
      const cpu = windows.close();
      results.forEach((result, index) => {
        const config = order[index]!;
        config.results.push(result);
        const used = cpu.get(config);
        if (!quick && used !== undefined) config.cpu.push(used.micros / used.requests);
      });
      await measureInMemory(order, quick ? 500 : MEMORY_REQUESTS);
      log(`round ${round + 1}/${runs} done`);
    }
  } finally {
    for (const config of configs) await config.server.close();
  }
  return report(configs, { runs, seconds, warmSeconds });
};

const signed = (value: number, digits: number) => `${value >= 0 ? "+" : ""}${value.toFixed(digits)}`;

function report(configs: Config[], settings: { runs: number; seconds: number; warmSeconds: number }) {
  const goals: Goal[] = [];
  const notes: string[] = [];
  const rows: string[][] = [];
  const latencyRows: string[][] = [];
  const cpuRows: string[][] = [];
  const wrapperRows: string[][] = [];
  const memoryRows: string[][] = [];
  for (const framework of FRAMEWORKS) {
    const of = (mode: Mode) => configs.find((c) => c.framework === framework && c.mode === mode)!;
    const bare = of("bare");
    const noop = of("no-op");
    const scheduled = of("scheduled");
    const queued = of("p-queue");
    // Paired figures: the same round, so the same moment of a noisy machine.
    const rpsRatio = (base: Config) =>
      median(
        base.results.map(
          (result, index) => scheduled.results[index]!.requestsPerSecond / result.requestsPerSecond,
        ),
      );
    const p99Delta = median(bare.results.map((result, index) => scheduled.results[index]!.p99 - result.p99));
    const vsBare = rpsRatio(bare);
    const vsNoop = rpsRatio(noop);
    const vsQueue = rpsRatio(queued);
    const started = scheduled.server.scheduler?.metrics().started ?? 0;
    const failures = [...bare.results, ...noop.results, ...scheduled.results, ...queued.results].reduce(
      (sum, result) => sum + result.failures,
      0,
    );
    if (failures > 0) notes.push(`${framework}: ${failures} responses were not 2xx or failed.`);
    if (started === 0)
      notes.push(`${framework}: the scheduler saw no request; the middleware was not in the path.`);
    const rps = (config: Config) =>
      spread(summarize(config.results.map((result) => result.requestsPerSecond)));
    const cpu = (config: Config) => median(config.cpu);
    rows.push([
      framework,
      rps(bare),
      rps(noop),
      rps(scheduled),
      rps(queued),
      ratio(vsNoop),
      ratio(vsBare),
      ratio(vsQueue),
    ]);
    const lat = (config: Config, key: "p50" | "p99") =>
      num(median(config.results.map((result) => result[key])), 2);
    latencyRows.push([
      framework,
      lat(bare, "p50"),
      lat(scheduled, "p50"),
      lat(bare, "p99"),
      lat(scheduled, "p99"),
      signed(p99Delta, 2),
    ]);
    const added = scheduled.cpu.length > 0 ? cpu(scheduled) - cpu(noop) : Number.NaN;
    const app = configs.find((c) => c.framework === framework && c.mode === "scheduled-app");
    const memory = inMemoryFigures({ bare, noop, scheduled, queued, floor: of("floor"), app });
    memoryRows.push([framework, ...memory.cells]);
    const memoryFailures = configs
      .filter((c) => c.framework === framework)
      .reduce((sum, c) => sum + c.memoryFailures, 0);
    if (memoryFailures > 0) notes.push(`${framework}: ${memoryFailures} in-memory answers were not 2xx.`);
    if (scheduled.cpu.length > 0) {
      cpuRows.push([
        framework,
        num(cpu(bare), 1),
        num(cpu(noop), 1),
        num(cpu(scheduled), 1),
        num(cpu(queued), 1),
        signed(cpu(noop) - cpu(bare), 1),
        signed(added, 1),
      ]);
    }
    if (app !== undefined) {
      const appStarted = app.server.scheduler?.metrics().started ?? 0;
      const appFailures = app.results.reduce((sum, result) => sum + result.failures, 0);
      if (appFailures > 0) notes.push(`${framework} scheduled(app): ${appFailures} responses failed.`);
      const paired = (base: Config) =>
        median(base.results.map((r, i) => app.results[i]!.requestsPerSecond / r.requestsPerSecond));
      const overBare = memory.appOverBare;
      const cpuCell = (value: number) => (Number.isNaN(value) ? "n/a" : signed(value, 1));
      wrapperRows.push([
        framework,
        rps(app),
        ratio(paired(scheduled)),
        ratio(paired(bare)),
        ratio(paired(queued)),
        app.cpu.length > 0 ? num(cpu(app), 1) : "n/a",
        cpuCell(app.cpu.length > 0 ? cpu(app) - cpu(bare) : Number.NaN),
        cpuCell(app.cpu.length > 0 ? cpu(app) - cpu(scheduled) : Number.NaN),
      ]);
      goals.push({
        name: `${framework}: CPU scheduled(app) adds over the bare app (in-memory connections)`,
        target: `<= ${GOAL_CPU_MICROS} µs per request`,
        measured: `${signed(overBare, 1)} µs`,
        holds: overBare <= GOAL_CPU_MICROS && appFailures === 0 && memoryFailures === 0 && appStarted > 0,
      });
    }
    goals.push(
      {
        name: `${framework}: CPU the middleware adds over a no-op middleware (in-memory connections)`,
        target: `<= ${GOAL_CPU_MICROS} µs per request`,
        measured: `${signed(memory.overNoop, 1)} µs (floor ${signed(memory.floorOverNoop, 1)} µs)`,
        holds: memory.overNoop <= GOAL_CPU_MICROS && failures === 0 && memoryFailures === 0 && started > 0,
      },
      {
        name: `${framework}: req/s with the middleware vs the handler wrapped in p-queue`,
        target: "> 1x",
        measured: ratio(vsQueue),
        holds: vsQueue > 1 && failures === 0 && started > 0,
      },
      {
        name: `${framework}: p99 latency added by the middleware`,
        target: `<= +${GOAL_P99_MS} ms`,
        measured: `${signed(p99Delta, 2)} ms`,
        holds: p99Delta <= GOAL_P99_MS && failures === 0 && started > 0,
      },
    );
  }
  return {
    part: "http",
    title: "HTTP: schedulerMiddleware() against the bare framework",
    method: [
      `Express 5, Koa 3 and Hono 4 (on @hono/node-server) each serve GET /v1/ping with a small JSON body in four ways (Hono in a fifth: the whole app wrapped in scheduled(app), no middleware): bare; behind a middleware that only calls next(), mounted the same way (the framework's own price for having any middleware); behind schedulerMiddleware() with a scheduler of ${SLOTS} slots (more than the ${CONNECTIONS} connections, so no request waits); and with the route handler wrapped in p-queue 10 of the same concurrency (await queue.add(() => handler(req, res))), the obvious alternative.`,
      `The thirteen servers run in one process; autocannon (${CONNECTIONS} connections, ${settings.seconds} s per server) runs in a separate process, one per round, visiting every server in an order that rotates each round.`,
      `${settings.warmSeconds > 0 ? `A ${settings.warmSeconds} s warm-up per server, then ` : ""}${settings.runs} round(s). Ratios and the p99 difference are medians over rounds of the paired figures (same round, same framework).`,
      "Server CPU per request is this process's user plus system time (all threads, gc included) while one server was under load, divided by the requests it answered; median over rounds.",
      `After each round, every server also answers ${MEMORY_REQUESTS.toLocaleString("en-US")} requests over ${CONNECTIONS} in-memory keep-alive connections (bench/http/in-memory.ts), timed by this process's CPU; the CPU goals use these figures, which a loaded machine moves far less than the ones over TCP.`,
    ],
    tables: [
      {
        title: "Requests per second, median (min–max)",
        columns: [
          "framework",
          "bare",
          "no-op middleware",
          "schedulerMiddleware",
          "p-queue handler",
          "vs no-op",
          "vs bare",
          "vs p-queue",
        ],
        rows,
      },
      {
        title: "Latency (ms), median over rounds",
        columns: ["framework", "bare p50", "scheduled p50", "bare p99", "scheduled p99", "p99 added"],
        rows: latencyRows,
      },
      ...(cpuRows.length === 0
        ? []
        : [
            {
              title: "Server CPU per request (µs), median over rounds",
              columns: [
                "framework",
                "bare",
                "no-op middleware",
                "schedulerMiddleware",
                "p-queue handler",
                "framework's middleware price",
                "schedulerMiddleware's own",
              ],
              rows: cpuRows,
              note: "On a 2-core machine the server and autocannon share the cores, so every µs of server CPU costs requests per second; with 10 connections a microsecond added per request shows as more than its share, since the two processes also wait on each other.",
            },
          ]),
      {
        title: "CPU per request over in-memory connections (µs), median over rounds",
        columns: [
          "framework",
          "bare",
          "no-op middleware",
          "schedulerMiddleware",
          "floor",
          "p-queue handler",
          "scheduled(app)",
          "middleware over no-op",
          "floor over no-op",
          "scheduled(app) over bare",
        ],
        rows: memoryRows,
        note: "Node's HTTP server, the framework and the middleware as in the table above, but each connection is an in-memory stream handed to the server (no kernel, no second process), and the same process sends the requests: the client's share is the same for every server, so the differences are the servers'. The floor is the least a middleware can do to hold a slot to the last byte and see a disconnect: a counter, taken before the chain and given back on the response's close.",
      },
      {
        title: "Hono: scheduled(app), the wrapper around app.fetch (no middleware)",
        columns: [
          "framework",
          "req/s",
          "vs schedulerMiddleware",
          "vs bare",
          "vs p-queue",
          "CPU µs/request",
          "CPU over bare",
          "CPU vs schedulerMiddleware",
        ],
        rows: wrapperRows,
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
        mode: config.mode,
        runs: config.results,
        cpuMicrosPerRequest: config.cpu,
      })),
    },
  };
}

/** The in-memory CPU figures of one framework: the table's cells and the differences the goals use. */
function inMemoryFigures(of: {
  bare: Config;
  noop: Config;
  scheduled: Config;
  queued: Config;
  floor: Config;
  app: Config | undefined;
}) {
  const mem = (config: Config) => median(config.memory);
  const overNoop = mem(of.scheduled) - mem(of.noop);
  const floorOverNoop = mem(of.floor) - mem(of.noop);
  const appOverBare = of.app === undefined ? Number.NaN : mem(of.app) - mem(of.bare);
  const cells = [
    num(mem(of.bare), 1),
    num(mem(of.noop), 1),
    num(mem(of.scheduled), 1),
    num(mem(of.floor), 1),
    num(mem(of.queued), 1),
    of.app === undefined ? "–" : num(mem(of.app), 1),
    signed(overNoop, 1),
    signed(floorOverNoop, 1),
    of.app === undefined ? "–" : signed(appOverBare, 1),
  ];
  return { cells, overNoop, floorOverNoop, appOverBare };
}

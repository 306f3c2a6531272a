// Part 4: HTTP overhead of schedulerMiddleware() while slots are free, against the bare framework,
// against a middleware that does nothing, and against the route handler wrapped in p-queue. Servers run in this process; autocannon runs in a separate
// one (probes/load.ts).
import { FRAMEWORKS, type Framework, type Mode, modesOf, PATH, type Running, start } from "../http/apps.js";
import { CpuWindows } from "../http/cpu-windows.js";
import { loadInMemory } from "../http/in-memory.js";
import { num, ratio, spread } from "../lib/format.js";
import { runProbe } from "../lib/node-child.js";
import type { Part } from "../lib/part.js";
import { pinTo, unpin } from "../lib/pin.js";
import type { Goal } from "../lib/report.js";
import { median, medianInterval, quantile, summarize } from "../lib/stats.js";
import type { LoadResult } from "../probes/load.js";

/** Server CPU the middleware may add per request over a no-op middleware mounted the same way. */
const GOAL_CPU_MICROS = 3;
const GOAL_P99_MS = 1;
const CONNECTIONS = 10;
/** The CPUs the servers and the load process are pinned to while loaded over TCP (see `lib/pin.ts`). */
const SERVER_CPU = 0;
const LOAD_CPU = 1;
/** Far more slots than connections: no request ever waits, so only the middleware's own cost shows. */
const SLOTS = 64;

interface Config {
  readonly framework: Framework;
  readonly mode: Mode;
  readonly server: Running;
  readonly results: LoadResult[];
  /** Server CPU per request (µs, this process, all threads), one per round; empty in quick runs. */
  readonly cpu: number[];
  /** Process CPU per request (µs) over in-memory connections (`in-memory.ts`), one per in-memory round. */
  readonly memory: number[];
  /** The main thread's CPU per request (µs) over in-memory connections, one per in-memory round. */
  readonly thread: number[];
  /** Answers that were not 2xx over in-memory connections. */
  memoryFailures: number;
}

/** Requests per server per in-memory round: short blocks, many rounds, so that pairs share a moment. */
const MEMORY_REQUESTS = 2_000;
/**
 * In-memory rounds (each visits every server of a framework once, in an order that rotates). Express's
 * CPU per request (about 45 µs) moves by ±10% from block to block even on a quiet machine, so the median
 * of a few µs of difference needs many rounds: about 45 s of the part for Express, 10 s for Koa and Hono.
 */
const MEMORY_ROUNDS = 80;

/**
 * The frameworks to measure: every one, or those named in `HTTP_BENCH_FRAMEWORKS` (comma-separated,
 * e.g. `express`), for a shorter run that a loaded machine disturbs less.
 */
function selectedFrameworks(): readonly Framework[] {
  const asked = process.env.HTTP_BENCH_FRAMEWORKS?.trim();
  if (asked === undefined || asked === "") return FRAMEWORKS;
  const names = asked.split(",").map((name) => name.trim());
  for (const name of names)
    if (!(FRAMEWORKS as readonly string[]).includes(name))
      throw new Error(
        `Unknown framework \`${name}\` in HTTP_BENCH_FRAMEWORKS (expected ${FRAMEWORKS.join(", ")})`,
      );
  return FRAMEWORKS.filter((framework) => names.includes(framework));
}

/** Each config's CPU per request over in-memory connections, in `order`. */
async function measureInMemory(order: readonly Config[], requests: number, keep: boolean): Promise<void> {
  for (const config of order) {
    const result = await loadInMemory((socket) => config.server.connect(socket), PATH, requests, CONNECTIONS);
    config.memoryFailures += result.failures;
    if (!keep) continue;
    config.memory.push(result.cpuMicros);
    config.thread.push(result.threadMicros);
  }
}

/**
 * `rounds` in-memory rounds per framework, after two warm-up rounds: each visits the framework's servers
 * in an order that rotates, so that every server's figure of round i sits next to the no-op's.
 */
async function inMemoryRounds(
  frameworks: readonly Framework[],
  configs: readonly Config[],
  rounds: number,
  requests: number,
): Promise<void> {
  for (const framework of frameworks) {
    const own = configs.filter((config) => config.framework === framework);
    for (let round = -2; round < rounds; round++) {
      const shift = Math.max(round, 0);
      const order = own.map((_, index) => own[(index + shift) % own.length]!);
      await measureInMemory(order, requests, round >= 0);
    }
  }
}

export const run: Part = async ({ quick, runs: asked, log }) => {
  const runs = asked ?? (quick ? 1 : 9);
  const seconds = quick ? 0.5 : 1.5;
  const warmSeconds = quick ? 0 : 1;
  const frameworks = selectedFrameworks();
  const memoryRounds = quick ? 2 : MEMORY_ROUNDS;
  const configs: Config[] = [];
  const windows = new CpuWindows<Config>();
  for (const framework of frameworks) {
    for (const mode of modesOf(framework)) {
      const config: Config = {
        framework,
        mode,
        server: await start(framework, mode, SLOTS),
        results: [],
        cpu: [],
        memory: [],
        thread: [],
        memoryFailures: 0,
      };
      config.server.onRequest(() => windows.serving(config));
      configs.push(config);
    }
  }
  // The servers on one CPU, autocannon on the other: requests per second then follow each server's own
  // CPU per request, not how the OS shares two cores between two busy processes.
  const pinned = !quick && pinTo(SERVER_CPU);
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
      windows.reset();
      const results = await runProbe<LoadResult[]>("load", [
        String(seconds),
        String(CONNECTIONS),
        ...order.map((config) => config.server.url),
        // A smoke run only checks that every server answers: load them all at once.
        ...(quick ? ["--parallel"] : []),
        ...(pinned ? [`--cpu=${LOAD_CPU}`] : []),
      ]);
      const cpu = windows.close();
      results.forEach((result, index) => {
        const config = order[index]!;
        config.results.push(result);
        const used = cpu.get(config);
        if (!quick && used !== undefined) config.cpu.push(used.micros / used.requests);
      });
      log(`round ${round + 1}/${runs} done`);
    }
    if (pinned) unpin();
    await inMemoryRounds(frameworks, configs, memoryRounds, quick ? 200 : MEMORY_REQUESTS);
    log("in-memory rounds done");
  } finally {
    if (pinned) unpin();
    for (const config of configs) await config.server.close();
  }
  return report(frameworks, configs, {
    pinned,
    runs,
    seconds,
    warmSeconds,
    memoryRounds,
    memoryRequests: quick ? 200 : MEMORY_REQUESTS,
    servers: configs.length,
  });
};

const signed = (value: number, digits: number) => `${value >= 0 ? "+" : ""}${value.toFixed(digits)}`;

interface Settings {
  /** Whether the servers ran pinned to one CPU and autocannon to another. */
  readonly pinned: boolean;
  readonly runs: number;
  readonly seconds: number;
  readonly warmSeconds: number;
  readonly memoryRounds: number;
  readonly memoryRequests: number;
  /** Servers measured, over every framework and mode. */
  readonly servers: number;
}

function report(frameworks: readonly Framework[], configs: Config[], settings: Settings) {
  const goals: Goal[] = [];
  const notes: string[] = [];
  const rows: string[][] = [];
  const latencyRows: string[][] = [];
  const cpuRows: string[][] = [];
  const wrapperRows: string[][] = [];
  const memoryRows: string[][] = [];
  for (const framework of frameworks) {
    const of = (mode: Mode) => configs.find((c) => c.framework === framework && c.mode === mode)!;
    const bare = of("bare");
    const noop = of("no-op");
    const scheduled = of("scheduled");
    const queued = of("p-queue");
    const p99Delta = median(bare.results.map((result, index) => scheduled.results[index]!.p99 - result.p99));
    const vsBare = rpsRatio(scheduled, bare);
    const vsNoop = rpsRatio(scheduled, noop);
    const vsQueue = rpsRatio(scheduled, queued);
    // The floor's requests per second against the same p-queue handler: what any middleware that holds
    // a slot to the last byte could reach at best.
    const floorVsQueue = rpsRatio(of("floor"), queued);
    // The least middleware built on the scheduler (a permit at once, released on close): what one
    // built on it could reach at best, the scheduler's own grant and release included.
    const schedulerFloorVsQueue = rpsRatio(of("scheduler-floor"), queued);
    const aheadOfQueue = queued.results.filter(
      (result, index) => scheduled.results[index]!.requestsPerSecond > result.requestsPerSecond,
    ).length;
    const started = scheduled.server.scheduler?.metrics().started ?? 0;
    const failures = [...bare.results, ...noop.results, ...scheduled.results, ...queued.results].reduce(
      (sum, result) => sum + result.failures,
      0,
    );
    if (failures > 0) notes.push(`${framework}: ${failures} responses were not 2xx or failed.`);
    const flattened = configs.find((c) => c.framework === framework && c.mode === "flattened");
    if (flattened !== undefined)
      notes.push(
        `${framework} with the opt-in flattenRequests() mounted first, then the middleware: ${ratio(rpsRatio(flattened, queued))} the requests per second of the p-queue handler (the middleware alone: ${ratio(vsQueue)}).`,
      );
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
      ratio(floorVsQueue),
      ratio(schedulerFloorVsQueue),
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
    const memory = inMemoryFigures({
      bare,
      noop,
      scheduled,
      queued,
      floor: of("floor"),
      schedulerFloor: of("scheduler-floor"),
      app,
    });
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
      const overBare = memory.appOverBare;
      const cpuCell = (value: number) => (Number.isNaN(value) ? "n/a" : signed(value, 1));
      wrapperRows.push([
        framework,
        rps(app),
        ratio(rpsRatio(app, scheduled)),
        ratio(rpsRatio(app, bare)),
        ratio(rpsRatio(app, queued)),
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
      const appVsQueue = rpsRatio(app, queued);
      goals.push({
        name: `${framework}: req/s with scheduled(app) vs the handler wrapped in p-queue`,
        target: "> 1x",
        measured: ratio(appVsQueue),
        holds: appVsQueue > 1 && appFailures === 0 && appStarted > 0,
      });
    }
    goals.push(
      {
        name: `${framework}: CPU the middleware adds over a no-op middleware (in-memory connections)`,
        target: `<= ${GOAL_CPU_MICROS} µs per request`,
        measured: `${pairedCell(memory.middleware)} µs, 95% interval of the median ${intervalCell(memory.middleware)} (floor ${signed(memory.floorOverNoop, 1)} µs, scheduler floor ${signed(memory.schedulerFloorOverNoop, 1)} µs)`,
        holds: memory.overNoop <= GOAL_CPU_MICROS && failures === 0 && memoryFailures === 0 && started > 0,
      },
      {
        name: `${framework}: req/s with the middleware vs the handler wrapped in p-queue, same run`,
        target: "> 1x",
        measured: `${ratio(vsQueue)} (ahead in ${aheadOfQueue} of ${queued.results.length} rounds; floor ${ratio(floorVsQueue)}, scheduler floor ${ratio(schedulerFloorVsQueue)})`,
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
      ...(frameworks.length < FRAMEWORKS.length
        ? [`Only ${frameworks.join(" and ")} this run (HTTP_BENCH_FRAMEWORKS).`]
        : []),
      `Express 5, Koa 3 and Hono 4 (on @hono/node-server) each serve GET /v1/ping with a small JSON body in six ways (Express and Hono in a seventh: the whole app wrapped in scheduled(app), no middleware): bare; behind a middleware that only calls next(), mounted the same way (the framework's own price for having any middleware); behind schedulerMiddleware() with a scheduler of ${SLOTS} slots (more than the ${CONNECTIONS} connections, so no request waits); with the route handler wrapped in p-queue 10 of the same concurrency (await queue.add(() => handler(req, res))), the obvious alternative; and behind the two floors, mounted as the middleware: a counter taken before the chain and given back on the response's close, and the least middleware built on the scheduler (tryAcquire(), released on close; bench/http/floor.ts).`,
      `The ${settings.servers} servers run in one process; autocannon (${CONNECTIONS} connections, ${settings.seconds} s per server) runs in a separate process, one per round, visiting every server in an order that rotates each round. ${settings.pinned ? `The servers' process ran pinned to CPU ${SERVER_CPU} and autocannon's to CPU ${LOAD_CPU} (taskset), so that each server's requests per second follow its own CPU per request rather than how two busy processes share the cores.` : "Nothing was pinned to a CPU (no taskset, a single CPU, or a quick run)."}`,
      `${settings.warmSeconds > 0 ? `A ${settings.warmSeconds} s warm-up per server, then ` : ""}${settings.runs} round(s). Ratios and the p99 difference are medians over rounds of the paired figures (same round, same framework).`,
      "Server CPU per request is this process's user plus system time (all threads, gc included) while one server was under load, divided by the requests it answered; median over rounds.",
      `Then ${settings.memoryRounds} in-memory rounds per framework (after two warm-up rounds): every server of the framework answers ${settings.memoryRequests.toLocaleString("en-US")} requests over ${CONNECTIONS} in-memory keep-alive connections (bench/http/in-memory.ts) in an order that rotates each round, timed by the main thread's CPU. The CPU goals use the median over rounds of the difference within each round, which a loaded machine moves far less than the figures over TCP; beside each, the 95% interval of that median (from the order statistics): a figure whose interval spans the goal is not settled by the run.`,
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
          "floor vs p-queue",
          "scheduler floor vs p-queue",
        ],
        rows,
        note: "Ratios are medians of the paired figures of each round. The floor (the least a middleware can do to hold a slot to the last byte: a counter and one close listener) against the same p-queue handler shows what any slot-holding middleware mounted this way could reach at best: p-queue releases its slot when the handler returns and watches no disconnect. The scheduler floor is the least middleware built on the scheduler (tryAcquire(), and a close listener that releases the permit): the best a middleware on it could reach, the scheduler's grant and release included.",
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
              note: settings.pinned
                ? "With the servers on a CPU of their own, a server's requests per second follow its CPU per request: a µs added per request costs its share of the server's time."
                : "On a 2-core machine the server and autocannon share the cores, so every µs of server CPU costs requests per second; with 10 connections a microsecond added per request shows as more than its share, since the two processes also wait on each other.",
            },
          ]),
      {
        title:
          "CPU per request over in-memory connections (µs, the main thread's): paired differences, median (interquartile range) over rounds",
        columns: [
          "framework",
          "no-op middleware",
          "middleware over no-op",
          "floor over no-op",
          "scheduler floor over no-op",
          "p-queue handler over no-op",
          "middleware over p-queue handler",
          "scheduled(app) over bare",
          "middleware over no-op, process CPU",
        ],
        rows: memoryRows,
        note: "Node's HTTP server, the framework and the middleware as in the tables above, but each connection is an in-memory stream handed to the server (no kernel, no second process), and the same process sends the requests: the client's share is the same for every server, so the differences are the servers'. Each difference is taken within one round (the same moment of the machine). The main thread's CPU (Linux's schedstat) leaves out V8's helper threads, whose concurrent marking and parallel scavenges land in whichever block runs; the last column is the process's figure, helper threads included, for comparison. The floor is the least a middleware can do to hold a slot to the last byte and see a disconnect: a counter, taken before the chain and given back on the response's close; the scheduler floor the least built on the scheduler: a permit taken at once and released on the response's close.",
      },
      {
        title: "Express and Hono: scheduled(app), the whole app wrapped (no middleware)",
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

/**
 * `config`'s requests per second over `base`'s, paired within each TCP round (the same moment of a
 * noisy machine), median over rounds.
 */
function rpsRatio(config: Config, base: Config): number {
  return median(
    base.results.map((result, index) => config.results[index]!.requestsPerSecond / result.requestsPerSecond),
  );
}

/** The median of `values`; NaN when a server was not measured (no figures). */
function medianOrNaN(values: readonly number[]): number {
  return values.length > 0 ? median(values) : Number.NaN;
}

/** Median and interquartile range of `values`, as "+1.2 (0.9 to 1.6)". */
function pairedCell(values: readonly number[]): string {
  if (values.length === 0) return "n/a";
  return `${signed(median(values), 1)} (${quantile(values, 0.25).toFixed(1)} to ${quantile(values, 0.75).toFixed(1)})`;
}

/** The 95% interval of the median of `values` (`medianInterval`), as "+0.8 to +1.9". */
function intervalCell(values: readonly number[]): string {
  if (values.length === 0) return "n/a";
  const [low, high] = medianInterval(values);
  return `${signed(low, 1)} to ${signed(high, 1)}`;
}

/** Per in-memory round, `of`'s figure minus `base`'s (the same round, the same moment of the machine). */
function pairedDifferences(of: readonly number[], base: readonly number[]): number[] {
  return of.map((value, round) => value - base[round]!);
}

/** The in-memory CPU figures of one framework: the table's cells and the differences the goals use. */
function inMemoryFigures(of: {
  bare: Config;
  noop: Config;
  scheduled: Config;
  queued: Config;
  floor: Config;
  schedulerFloor: Config;
  app: Config | undefined;
}) {
  const over = (config: Config, base: Config) => pairedDifferences(config.thread, base.thread);
  const middleware = over(of.scheduled, of.noop);
  const vsQueue = over(of.scheduled, of.queued);
  const app = of.app === undefined ? [] : over(of.app, of.bare);
  const floor = over(of.floor, of.noop);
  const schedulerFloor = over(of.schedulerFloor, of.noop);
  const overNoop = medianOrNaN(middleware);
  const floorOverNoop = medianOrNaN(floor);
  const schedulerFloorOverNoop = medianOrNaN(schedulerFloor);
  const appOverBare = medianOrNaN(app);
  const processOverNoop = pairedDifferences(of.scheduled.memory, of.noop.memory);
  const cells = [
    of.noop.thread.length > 0 ? num(median(of.noop.thread), 1) : "n/a",
    pairedCell(middleware),
    pairedCell(floor),
    pairedCell(schedulerFloor),
    pairedCell(over(of.queued, of.noop)),
    pairedCell(vsQueue),
    of.app === undefined ? "–" : pairedCell(app),
    pairedCell(processOverNoop),
  ];
  return { cells, overNoop, floorOverNoop, schedulerFloorOverNoop, appOverBare, middleware };
}

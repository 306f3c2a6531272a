// Two builds of one adapter in one process: the same app behind each build's schedulerMiddleware()
// (each with its own core, from its own tree), and behind a no-op middleware, answer blocks of requests
// over in-memory connections in an order that rotates each round. Each round's CPU per request is
// taken against the same round's no-op, and the build's against the first build's, so a loaded
// machine moves both alike. Also counts each server's scavenges (young-generation collections) in
// its blocks: with a fixed young generation that count follows the bytes a request allocates, and,
// unlike CPU time, the machine's load does not move it. CPU is given twice: the main thread's own
// (`thread-cpu.ts`: the event loop, what the middleware costs) and the process's (helper threads too).
//   cp -r <tree> /tmp/before && (cd /tmp/before && git checkout <commit> && pnpm build)   # any copy
//   pnpm build && node --min-semi-space-size=1 --max-semi-space-size=1 --import tsx \
//     bench/tools/ab-builds.ts koa 100 1000 /tmp/before .
// Arguments: <express|koa|hono> <rounds> <requests per block> <tree...> (a tree: a repository root
// whose packages are built; its `packages/core` and `packages/<framework>` are loaded from `dist/`)
import { createServer, type Server } from "node:http";
import { resolve } from "node:path";
import { constants, PerformanceObserver, performance } from "node:perf_hooks";
import type { Duplex } from "node:stream";
import { pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";
import { Hono, type MiddlewareHandler } from "hono";
import { FRAMEWORKS, type Framework, PATH } from "../http/apps.js";
import { loadInMemory } from "../http/in-memory.js";
import { measuresThread } from "../http/thread-cpu.js";
import { express, Koa, type KoaContext } from "../http/untyped.js";
import { median, quantile } from "../lib/stats.js";

const [framework, roundsText, blockText, ...trees] = process.argv.slice(2) as [
  Framework,
  string,
  string,
  ...string[],
];
if (!FRAMEWORKS.includes(framework) || trees.length === 0)
  throw new Error(`Usage: ab-builds.ts <${FRAMEWORKS.join("|")}> <rounds> <block> <tree...>`);
const rounds = Number(roundsText);
const block = Number(blockText);
const BODY = { ok: true };

/** A build's middleware factory and scheduler factory, loaded from its tree's `dist/`. */
async function middlewareOf(tree: string): Promise<unknown> {
  const load = (pkg: string) => import(pathToFileURL(resolve(tree, `packages/${pkg}/dist/index.js`)).href);
  const core = (await load("core")) as { createScheduler(options: object): unknown };
  const adapter = (await load(framework)) as { schedulerMiddleware(options: object): unknown };
  return adapter.schedulerMiddleware({ scheduler: core.createScheduler({ maxConcurrency: 64 }) });
}

const noop = {
  express: (_req: unknown, _res: unknown, next: () => void) => next(),
  koa: (_ctx: KoaContext, next: () => Promise<void>) => next(),
  hono: ((_c, next) => next()) as MiddlewareHandler,
};

/** The HTTP part's app (bench/http/apps.ts) with `middleware` in front of the route. */
function serverWith(middleware: unknown): Server {
  if (framework === "hono") {
    const app = new Hono();
    app.use("/v1/*", middleware as MiddlewareHandler);
    app.get(PATH, (c) => c.json(BODY));
    return serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
  }
  if (framework === "koa") {
    const app = new Koa();
    app.use(middleware);
    app.use(async (ctx: KoaContext) => {
      if (ctx.path === PATH) ctx.body = BODY;
    });
    return createServer(app.callback());
  }
  const app = express();
  app.use("/v1", middleware);
  app.get(PATH, (_req, res) => res.json(BODY));
  return createServer(app);
}

const names = ["no-op", ...trees];
const servers = [serverWith(noop[framework])];
for (const tree of trees) servers.push(serverWith(await middlewareOf(tree)));

const scavenges: number[] = [];
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const { kind } = (entry as PerformanceEntry & { readonly detail: { readonly kind: number } }).detail;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges.push(entry.startTime);
  }
});
observer.observe({ entryTypes: ["gc"] });

const cpu = names.map((): number[] => []);
const threadCpu = names.map((): number[] => []);
const windows = names.map((): Array<readonly [number, number]> => []);
for (let round = -2; round < rounds; round++) {
  // Two warm-up rounds first, then `rounds` measured ones.
  for (let i = 0; i < servers.length; i++) {
    const index = (i + Math.max(round, 0)) % servers.length;
    const from = performance.now();
    const result = await loadInMemory(
      (socket: Duplex) => servers[index]!.emit("connection", socket),
      PATH,
      block,
      10,
    );
    if (result.failures > 0) throw new Error(`${names[index]}: ${result.failures} answers were not 2xx`);
    if (round < 0) continue;
    cpu[index]!.push(result.cpuMicros);
    threadCpu[index]!.push(result.threadMicros);
    windows[index]!.push([from, performance.now()]);
  }
}
await new Promise((done) => setTimeout(done, 100)); // the last gc entries arrive asynchronously
observer.disconnect();
for (const server of servers) server.close();

const cell = (values: readonly number[]) =>
  `${median(values).toFixed(2)} (${quantile(values, 0.25).toFixed(2)}–${quantile(values, 0.75).toFixed(2)})`;
console.log(
  `${framework}, ${rounds} rounds of ${block} requests per server; µs of CPU per request, median (IQR)`,
);
const inBlocks = (index: number) =>
  scavenges.filter((at) => windows[index]!.some(([from, to]) => at >= from && at < to)).length;
for (const [label, figures] of [
  [measuresThread ? "this thread" : "this process (no /proc/thread-self here)", threadCpu],
  ["this process, helper threads included", cpu],
] as const) {
  console.log(label);
  names.forEach((name, index) => {
    const over = (base: number) => figures[index]!.map((value, round) => value - figures[base]![round]!);
    const columns = [
      name.padEnd(16),
      cell(figures[index]!).padEnd(22),
      index === 0 ? "" : `over no-op ${cell(over(0))}`.padEnd(34),
      index < 2 ? "" : `over ${names[1]} ${cell(over(1))}`,
    ];
    console.log(`  ${columns.join(" ")}`);
    if (figures === cpu)
      console.log(
        `    ${inBlocks(index)} scavenges in its ${(rounds * block).toLocaleString("en-US")} requests`,
      );
  });
}
process.exit(0); // the servers' keep-alive connections are in-memory streams: nothing else to wait for

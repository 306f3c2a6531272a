// The Express middleware's own time per request on a real Express 5 app, against a no-op middleware
// mounted the same way: the time from calling it to its `next()`, and the time its `close` listener
// adds to Node's `close` of the response, each the median over tens of thousands of requests that
// alternate between the two (over in-memory connections, `bench/http/in-memory.ts`). A median of
// single requests' intervals is rarely hit by the machine's load, unlike a block's CPU per request;
// what it leaves out is what the middleware makes others do later (Node writing the `Server-Timing`
// header, the garbage collector), which the http part's CPU figures include.
//   node --import tsx bench/tools/own-time-express.ts            # the built packages (pnpm build)
//   node --conditions=source --import tsx bench/tools/own-time-express.ts
// Arguments: [requests=40000]
import { createServer, type ServerResponse } from "node:http";
import { createScheduler } from "@llm-scheduler/core";
import { schedulerMiddleware } from "@llm-scheduler/express";
import { PATH } from "../http/apps.js";
import { loadInMemory } from "../http/in-memory.js";
import { express } from "../http/untyped.js";
import { median, quantile } from "../lib/stats.js";

type Middleware = (req: unknown, res: ServerResponse, next: () => void) => void;

const requests = Number(process.argv[2] ?? 40_000);
const scheduler = createScheduler({ maxConcurrency: 64 });
const middlewares: Record<string, Middleware> = {
  "no-op": (_req, _res, next) => next(),
  schedulerMiddleware: schedulerMiddleware({ scheduler }) as unknown as Middleware,
};
const names = Object.keys(middlewares);
const before = new Map(names.map((name) => [name, [] as number[]]));
const closing = new Map(names.map((name) => [name, [] as number[]]));
/** In the second pass a listener before and one after the middleware's time Node's `close`. */
let timeClose = false;
let turn = 0;

const app = express();
app.use("/v1", (req: unknown, res: ServerResponse, next: () => void) => {
  const name = names[turn++ % names.length]!;
  let closeStarted = 0;
  if (timeClose) res.prependListener("close", () => (closeStarted = performance.now()));
  const started = performance.now();
  middlewares[name]!(req, res, () => {
    if (!timeClose) before.get(name)!.push((performance.now() - started) * 1000);
    else res.on("close", () => closing.get(name)!.push((performance.now() - closeStarted) * 1000));
    next();
  });
});
app.get(PATH, (_req, res) => res.json({ ok: true }));
const server = createServer(app);
const connect = (socket: import("node:stream").Duplex) => server.emit("connection", socket);

await loadInMemory(connect, PATH, 5_000, 10); // warm-up: V8 compiles the hot paths
for (const values of before.values()) values.length = 0;
await loadInMemory(connect, PATH, requests, 10);
timeClose = true;
await loadInMemory(connect, PATH, requests, 10);
const cell = (values: number[]) =>
  `${median(values).toFixed(2)} (${quantile(values, 0.25).toFixed(2)} to ${quantile(values, 0.75).toFixed(2)})`;
console.log("µs per request, median (interquartile range)");
for (const name of names)
  console.log(
    `${name.padEnd(20)} before next() ${cell(before.get(name)!)}  close ${cell(closing.get(name)!)}`,
  );
console.log(`requests the scheduler started: ${scheduler.metrics().started}`);
await scheduler.close();
server.close();

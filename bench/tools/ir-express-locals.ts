// Why `scheduled(app)` counts fewer instructions than the bare Express app: serves the HTTP part's ping
// app behind a one-line request listener, for valgrind as `ir-http.ts` (bundle it the same way, to
// bench/node_modules/.cache/ir-express-locals.mjs, and take the "I refs" difference between 5000 and
// 1000 requests / 4000). Variants: `bare` (the app itself), `wrap` (a listener that calls the app),
// `locals` (one that gives Node's `res` its `locals` first, as `scheduled(app)` does), `prop` (one that
// adds an own property to Node's `req` first).
// Arguments: <bare|wrap|locals|prop> <requests> [warm-up requests=1000]
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { loadInMemory } from "../http/in-memory.js";
import { express } from "../http/untyped.js";

const [variant, requests, warm = "1000"] = process.argv.slice(2) as [string, string, string];
const app = express();
app.get("/v1/ping", (_req: unknown, res: { json(body: unknown): void }) => res.json({ ok: true }));
const slot = { id: "slot" };
const listeners: Record<string, RequestListener> = {
  bare: app,
  wrap: (req, res) => app(req, res),
  locals: (req, res) => {
    const locals = Object.create(null) as Record<string, unknown>;
    locals.llmScheduler = slot;
    (res as ServerResponse & { locals?: unknown }).locals = locals;
    app(req, res);
  },
  prop: (req, res) => {
    (req as IncomingMessage & { llmScheduler?: unknown }).llmScheduler = slot;
    app(req, res);
  },
};
const listener = listeners[variant];
if (listener === undefined)
  throw new Error(`Usage: ir-express-locals.ts <${Object.keys(listeners).join("|")}> <requests>`);
const server = createServer(listener);
const connect = (socket: Duplex): void => {
  server.emit("connection", socket);
};
await loadInMemory(connect, "/v1/ping", Number(warm), 10);
const { failures } = await loadInMemory(connect, "/v1/ping", Number(requests), 10);
server.close();
if (failures > 0) throw new Error(`${failures} answers were not 2xx`);

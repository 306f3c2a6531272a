// The same tiny JSON endpoint on Express, Koa and Hono: bare, behind a middleware that does nothing (the
// framework's own price for any middleware), behind schedulerMiddleware(), or with the route handler
// wrapped in p-queue (`await queue.add(() => handler())`), the obvious alternative; and behind the two
// floors of `floor.ts`: a counter, and the least middleware built on the scheduler.

import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { serve } from "@hono/node-server";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import {
  scheduled as expressScheduled,
  schedulerMiddleware as expressScheduler,
  flattenRequests,
} from "@llm-scheduler/express";
import { scheduled as honoScheduled, schedulerMiddleware as honoScheduler } from "@llm-scheduler/hono";
import { schedulerMiddleware as koaScheduler } from "@llm-scheduler/koa";
import { Hono } from "hono";
import PQueue from "p-queue";
import { holdUntilClosed, permitUntilClosed } from "./floor.js";
import { express, Koa, type KoaContext } from "./untyped.js";

export const FRAMEWORKS = ["express", "koa", "hono"] as const;
export type Framework = (typeof FRAMEWORKS)[number];

export const MODES = [
  "bare",
  "no-op",
  "scheduled",
  "p-queue",
  "floor",
  "scheduler-floor",
  "scheduled-app",
  "flattened",
] as const;
export type Mode = (typeof MODES)[number];

/**
 * The ways `framework` is served: Hono also as `scheduled(app)`, the wrapper around `app.fetch`, and
 * Express as `scheduled(app)`, the request listener around the app. Express also `flattened`: the
 * opt-in `flattenRequests()` mounted first, then the middleware as in `scheduled`.
 */
export function modesOf(framework: Framework): readonly Mode[] {
  return MODES.filter((mode) => ONLY[mode]?.includes(framework) ?? true);
}

/** The modes that only some frameworks are served in. */
const ONLY: Partial<Record<Mode, readonly Framework[]>> = {
  "scheduled-app": ["express", "hono"],
  flattened: ["express"],
};

export const PATH = "/v1/ping";
const BODY = { ok: true };
/** Slots of the floor middleware: as many as the scheduler's, never all taken. */
const FLOOR_SLOTS = 64;

interface NodeResponse {
  on(event: "close", listener: () => void): unknown;
  writeHead(status: number): { end(): void };
}

/** How a floor mode holds a slot for a response until it closes: false when none is free. */
type Hold = (response: NodeResponse) => boolean;

/** The floor of `mode` (see `floor.ts`): the counter, or the least middleware on `scheduler`; else null. */
function holdOf(mode: Mode, scheduler: Scheduler | null): Hold | null {
  if (mode === "floor") return (response) => holdUntilClosed(response, FLOOR_SLOTS);
  if (mode === "scheduler-floor" && scheduler !== null)
    return (response) => permitUntilClosed(scheduler, response);
  return null;
}

/** A server listening on 127.0.0.1 and a function that closes it (and its scheduler). */
export interface Running {
  readonly url: string;
  /** The middleware's scheduler, or `null` without schedulerMiddleware(). */
  readonly scheduler: Scheduler | null;
  /** Calls `listener` on every request, before the app sees it. */
  onRequest(listener: () => void): void;
  /** Hands the server a connection of the caller's (an in-memory socket; see `in-memory.ts`). */
  connect(socket: Duplex): void;
  close(): Promise<void>;
}

/** More slots than load connections, so that no request ever waits: the cost measured is the middleware's. */
export function freeScheduler(slots: number): Scheduler {
  return createScheduler({ maxConcurrency: slots });
}

function expressApp(mode: Mode, scheduler: Scheduler | null, queue: PQueue | null): RequestListener {
  const app = express();
  if (mode === "flattened") app.use("/v1", flattenRequests());
  if (mode === "no-op") app.use("/v1", (_req: unknown, _res: unknown, next: () => void) => next());
  const hold = holdOf(mode, scheduler);
  if (hold !== null)
    app.use("/v1", (_req: unknown, res: NodeResponse, next: () => void) =>
      hold(res) ? next() : res.writeHead(429).end(),
    );
  if (scheduler !== null && (mode === "scheduled" || mode === "flattened"))
    app.use("/v1", expressScheduler({ scheduler }));
  const handler = (res: { json(body: unknown): void }): void => res.json(BODY);
  if (queue === null) app.get(PATH, (_req, res) => handler(res));
  else
    app.get(PATH, async (_req, res) => {
      await queue.add(() => handler(res));
    });
  // `scheduled-app`: no middleware; the whole app is wrapped, as `createServer(scheduled(app))`.
  return mode === "scheduled-app" ? expressScheduled(app, { scheduler: scheduler! }) : app;
}

function koaApp(mode: Mode, scheduler: Scheduler | null, queue: PQueue | null): RequestListener {
  const app = new Koa();
  if (mode === "no-op") app.use((_ctx: KoaContext, next: () => Promise<void>) => next());
  const hold = holdOf(mode, scheduler);
  if (hold !== null)
    app.use((ctx: KoaContext, next: () => Promise<void>) => {
      if (hold(ctx.res)) return next();
      ctx.status = 429;
      return undefined;
    });
  if (scheduler !== null && mode === "scheduled") app.use(koaScheduler({ scheduler }));
  const handler = (ctx: KoaContext): void => {
    ctx.body = BODY;
  };
  app.use(async (ctx: KoaContext) => {
    if (ctx.path !== PATH) return;
    if (queue === null) handler(ctx);
    else await queue.add(() => handler(ctx));
  });
  return app.callback();
}

function honoApp(mode: Mode, scheduler: Scheduler | null, queue: PQueue | null): Hono {
  const app = new Hono();
  if (mode === "no-op") app.use("/v1/*", (_c, next) => next());
  const hold = holdOf(mode, scheduler);
  if (hold !== null)
    app.use("/v1/*", async (c, next) => {
      const { outgoing } = c.env as { outgoing: NodeResponse };
      if (hold(outgoing)) return next();
      return c.text("busy", 429);
    });
  if (scheduler !== null && mode === "scheduled") app.use("/v1/*", honoScheduler({ scheduler }));
  if (queue === null) app.get(PATH, (c) => c.json(BODY));
  else app.get(PATH, (c) => queue.add(() => c.json(BODY)));
  return app;
}

function listening(server: Server, scheduler: Scheduler | null): Promise<Running> {
  return new Promise((resolve, reject) => {
    const ready = (): void => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}${PATH}`,
        scheduler,
        onRequest: (listener) => {
          server.prependListener("request", listener);
        },
        connect: (socket) => {
          server.emit("connection", socket);
        },
        close: async () => {
          server.closeAllConnections();
          await new Promise<void>((done) => server.close(() => done()));
          await scheduler?.close();
        },
      });
    };
    server.once("error", reject);
    if (server.listening) ready();
    else server.once("listening", ready);
  });
}

/**
 * Starts `framework` on a free port; `scheduled` puts schedulerMiddleware() with `slots` slots in front,
 * `p-queue` wraps the route handler in a p-queue of `slots` concurrency, `scheduled-app` (Hono and
 * Express) serves `scheduled(app)`, `floor` and `scheduler-floor` put the floors of `floor.ts` in front
 * (the latter on a scheduler of `slots` slots).
 */
export async function start(framework: Framework, mode: Mode, slots = 64): Promise<Running> {
  const scheduler =
    mode === "scheduled" || mode === "scheduled-app" || mode === "scheduler-floor" || mode === "flattened"
      ? freeScheduler(slots)
      : null;
  const queue = mode === "p-queue" ? new PQueue({ concurrency: slots }) : null;
  if (framework === "hono") {
    const app = honoApp(mode, scheduler, queue);
    // `scheduled-app`: no middleware; the whole app is wrapped, as `serve(scheduled(app))`.
    const fetch = mode === "scheduled-app" ? honoScheduled(app, { scheduler: scheduler! }).fetch : app.fetch;
    const server = serve({ fetch, port: 0, hostname: "127.0.0.1" }) as Server;
    return listening(server, scheduler);
  }
  const handler =
    framework === "express" ? expressApp(mode, scheduler, queue) : koaApp(mode, scheduler, queue);
  const server = createServer(handler);
  server.listen(0, "127.0.0.1");
  return listening(server, scheduler);
}

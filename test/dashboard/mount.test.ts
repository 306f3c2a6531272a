import type { RequestListener } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { createScheduler } from "@llm-scheduler/core";
import { createDashboard, type Dashboard } from "@llm-scheduler/dashboard";
import { toKoaMiddleware, toNodeHandler } from "@llm-scheduler/dashboard/node";
import express from "express";
import { Hono } from "hono";
import Koa from "koa";
import { afterEach, describe, expect, it } from "vitest";
import { createServer, listen } from "./fixtures.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dashboardFor(extra: { maxStreams?: number; authorize?: () => boolean } = {}): Dashboard {
  const scheduler = createScheduler({ maxConcurrency: 3 });
  const dashboard = createDashboard({ scheduler, access: "aggregate", ...extra });
  cleanups.push(
    () => scheduler.close(),
    () => dashboard.close(),
  );
  return dashboard;
}

async function serve(handler: RequestListener): Promise<string> {
  const server = await listen(createServer(handler));
  cleanups.push(server.close);
  return server.url;
}

/** Reads a stream until the first snapshot event; returns its data. */
async function firstEvent(response: Response): Promise<{ maxConcurrency: number }> {
  const reader = response.body!.getReader();
  let text = "";
  while (!text.includes("event: snapshot\ndata: "))
    text += new TextDecoder().decode((await reader.read()).value);
  while (!text.endsWith("\n\n")) text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  return JSON.parse(text.split("event: snapshot\ndata: ")[1]!.split("\n\n")[0]!);
}

describe("mounting", () => {
  it("Hono mounts the handler directly, with or without the trailing path", async () => {
    const dashboard = dashboardFor();
    const app = new Hono();
    app.all("/dashboard/*", (c) => dashboard(c.req.raw));
    app.get("/other", (c) => c.text("other"));
    expect((await app.request("/dashboard")).headers.get("content-type")).toMatch(/^text\/html/);
    expect((await app.request("/dashboard/api/snapshot")).status).toBe(200);
    expect(await (await app.request("/other")).text()).toBe("other");
    const events = await app.request("/dashboard/api/events");
    expect((await firstEvent(events)).maxConcurrency).toBe(3);
  });

  it("Express mounts it with one line, at the root or under a prefix, and passes other paths on", async () => {
    const dashboard = dashboardFor({ authorize: () => true });
    const app = express();
    app.use(toNodeHandler(dashboard));
    app.get("/other", (_req, res) => void res.send("other"));
    const url = await serve(app);
    expect((await fetch(`${url}/dashboard`)).headers.get("content-security-policy")).toContain("'self'");
    expect(await (await fetch(`${url}/other`)).text()).toBe("other");
    const posted = await fetch(`${url}/dashboard/api/limits`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ maxConcurrency: 5 }),
    });
    expect(await posted.json()).toMatchObject({ maxConcurrency: 5 });
    const parsing = express(); // a body parser that runs first leaves the controls working
    parsing.use(express.json());
    parsing.use(toNodeHandler(dashboard));
    const parsingUrl = await serve(parsing);
    const afterParser = await fetch(`${parsingUrl}/dashboard/api/limits`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ maxConcurrency: 4 }),
    });
    expect(await afterParser.json()).toMatchObject({ maxConcurrency: 4 });
    const prefixed = express();
    prefixed.use("/dashboard", toNodeHandler(dashboard)); // Express strips the prefix; originalUrl keeps it
    const prefixedUrl = await serve(prefixed);
    expect((await fetch(`${prefixedUrl}/dashboard/api/snapshot`)).status).toBe(200);
  });

  it("Koa mounts it with one line and passes other paths on", async () => {
    const dashboard = dashboardFor();
    const app = new Koa();
    app.use(toKoaMiddleware(dashboard));
    app.use((ctx) => {
      ctx.body = "other";
    });
    const url = await serve(app.callback());
    expect((await fetch(`${url}/dashboard/app.js`)).headers.get("content-type")).toMatch(/javascript/);
    expect(await (await fetch(`${url}/other`)).text()).toBe("other");
    const refused = await fetch(`${url}/dashboard/api/limits`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe("read_only");
  });

  for (const [name, listener] of [
    ["Express", (dashboard: Dashboard) => toNodeHandler(dashboard)],
    [
      "Hono on @hono/node-server",
      (dashboard: Dashboard) => {
        const app = new Hono();
        app.all("/dashboard/*", (c) => dashboard(c.req.raw));
        return getRequestListener(app.fetch) as RequestListener;
      },
    ],
  ] as const) {
    it(`frees a stream's place over real HTTP when the client disconnects (${name})`, async () => {
      const dashboard = dashboardFor({ maxStreams: 1 });
      const url = await serve(listener(dashboard));
      const controller = new AbortController();
      const first = await fetch(`${url}/dashboard/api/events`, { signal: controller.signal });
      expect(first.status).toBe(200);
      expect((await fetch(`${url}/dashboard/api/events`)).status).toBe(503);
      controller.abort();
      let status = 503;
      for (let i = 0; i < 100 && status === 503; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const next = await fetch(`${url}/dashboard/api/events`);
        status = next.status;
        await next.body?.cancel();
      }
      expect(status).toBe(200);
    });
  }
});

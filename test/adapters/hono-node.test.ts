import { getRequestListener } from "@hono/node-server";
import { createScheduler } from "@llm-scheduler/core";
import { type LlmSchedulerEnv, schedulerMiddleware } from "@llm-scheduler/hono";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { runAdapterContract } from "./contract.js";
import { honoContractApp, honoScheduledContractApp } from "./hono-app.js";
import { hangUpInHandler, until } from "./probe.js";
import { serveListener } from "./serve.js";

// As `serve()` runs it: the Node response reaches the middleware as `c.env.outgoing`.
runAdapterContract("hono on @hono/node-server", async (setup) => {
  const app = honoContractApp(setup);
  return serveListener(getRequestListener(app.fetch));
});

// As a runtime without Node bindings would (Bun, Deno, workers): only the web Request and Response.
runAdapterContract("hono on @hono/node-server, web standards only", async (setup) => {
  const app = honoContractApp(setup);
  return serveListener(getRequestListener((request) => app.fetch(request)));
});

describe.each([
  ["with Node bindings", (app: Hono<LlmSchedulerEnv>) => getRequestListener(app.fetch)],
  ["web standards only", (app: Hono<LlmSchedulerEnv>) => getRequestListener((request) => app.fetch(request))],
])("hono on @hono/node-server, %s: a stream body returned after the client has left", (_name, listen) => {
  it("is cancelled, and its slot freed well before the grace", async () => {
    const scheduler = createScheduler({ maxConcurrency: 1, abortGraceMs: 5_000 });
    let entered = false;
    let cancelled = false;
    const app = new Hono<LlmSchedulerEnv>();
    app.use(schedulerMiddleware({ scheduler }));
    app.get("/", async (c) => {
      const { signal } = c.get("llmScheduler");
      entered = true;
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      const body = new ReadableStream({
        cancel() {
          cancelled = true;
        },
      });
      return c.body(body);
    });
    const server = await serveListener(listen(app));
    await hangUpInHandler(server, scheduler, () => entered);
    expect(cancelled).toBe(true);
  });
});

describe("hono on @hono/node-server with Node bindings: a body already in memory", () => {
  it("is sent as the handler made it (no wrapped copy), and its slot is freed once Node has sent it", async () => {
    const scheduler = createScheduler({ maxConcurrency: 1 });
    let made: Response | undefined;
    let sent: Response | undefined;
    const app = new Hono<LlmSchedulerEnv>();
    app.use(async (c, next) => {
      await next();
      sent = c.res; // what @hono/node-server is handed, after the scheduler's middleware has run
    });
    app.use(schedulerMiddleware({ scheduler }));
    app.get("/json", (c) => {
      made = c.json({ ok: true });
      return made;
    });
    app.get("/stream", (c) => {
      made = c.body(new ReadableStream({ start: (controller) => controller.close() }));
      return made;
    });
    const server = await serveListener(getRequestListener(app.fetch));
    try {
      const json = await server.fetch("/json");
      expect(await json.json()).toEqual({ ok: true });
      expect(json.headers.get("server-timing")).toMatch(/^queue;dur=/);
      expect(sent).toBe(made); // @hono/node-server's fast path for in-memory bodies is kept
      await until(() => scheduler.metrics().running === 0, "the slot back");
      await (await server.fetch("/stream")).text();
      expect(sent).not.toBe(made); // a streamed body is held through a wrapper until its source ends
      await until(() => scheduler.metrics().running === 0, "the slot back");
    } finally {
      await server.close();
      await scheduler.close();
    }
  });
});

describe("hono on @hono/node-server with Node bindings: Server-Timing", () => {
  it("is sent once on every kind of answer, a value the handler set is kept, and a reused response is timed afresh", async () => {
    const scheduler = createScheduler({ maxConcurrency: 1 });
    const reused = new Response("same", { headers: { "content-type": "text/plain" } });
    const app = new Hono<LlmSchedulerEnv>();
    app.use(schedulerMiddleware({ scheduler }));
    app.get("/json", (c) => c.json({ ok: true }));
    app.get("/text", (c) => c.text("plain"));
    app.get("/own", () => new Response("own", { headers: { "Server-Timing": "app;dur=1" } }));
    app.get("/reused", () => reused);
    app.get("/throw", () => {
      throw new Error("handler failed");
    });
    const server = await serveListener(getRequestListener(app.fetch));
    try {
      for (const path of ["/json", "/text", "/reused", "/reused", "/throw"]) {
        const answer = await server.fetch(path);
        await answer.text();
        expect(answer.headers.get("server-timing"), path).toMatch(/^queue;dur=\d+\.\d$/);
      }
      const own = await server.fetch("/own");
      expect(await own.text()).toBe("own");
      expect(own.headers.get("server-timing")).toBe("app;dur=1");
      await until(() => scheduler.metrics().running === 0, "every slot back");
    } finally {
      await server.close();
      await scheduler.close();
    }
  });
});

// `scheduled(app)`: the same contract with the app scheduled from outside, on Node and web standards only.
runAdapterContract("hono scheduled(app) on @hono/node-server", async (setup) => {
  const app = honoScheduledContractApp(setup);
  return serveListener(getRequestListener(app.fetch));
});

runAdapterContract("hono scheduled(app) on @hono/node-server, web standards only", async (setup) => {
  const app = honoScheduledContractApp(setup);
  return serveListener(getRequestListener((request) => app.fetch(request)));
});

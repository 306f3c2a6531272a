import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { scheduled } from "./scheduled.js";

/** An Express app with a streaming route that waits until told, a route that fails, and one that answers. */
function llmApp() {
  const gates: Array<() => void> = [];
  const app = express();
  app.get("/v1/slot", (req, res) => {
    const { tenant, id } = req.llmScheduler!;
    res.json({ tenant, id, same: res.locals.llmScheduler === req.llmScheduler });
  });
  app.get("/v1/stream", async (req, res) => {
    const { signal } = req.llmScheduler!;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("data: first\n\n");
    await new Promise<void>((resolve) => {
      gates.push(resolve);
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    if (!signal.aborted) res.write("data: last\n\n");
    res.end();
  });
  app.get("/v1/wait", async (req, res) => {
    const { signal } = req.llmScheduler!;
    await new Promise<void>((resolve) => {
      gates.push(resolve);
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    if (res.headersSent) return void res.end(); // answered for us (the 504): end our part all the same
    res.json({ ok: true });
  });
  app.get("/v1/fail", (_req, _res, next) => next(new Error("upstream down")));
  const openAll = (): void => {
    for (const open of gates.splice(0)) open();
  };
  return { app, openAll };
}

let server: Server | undefined;
let scheduler: Scheduler;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  await scheduler.close({ timeoutMs: 100 });
});

async function listen(listener: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(listener);
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Counts the slots let go (completed or failed), to see that each is freed exactly once. */
function releases(of: Scheduler): () => number {
  let count = 0;
  of.on("completed", () => count++);
  of.on("failed", () => count++);
  return () => count;
}

describe("scheduled(app) (Express)", () => {
  it("sets req.llmScheduler and res.locals.llmScheduler to the same slot, with Server-Timing", async () => {
    scheduler = createScheduler({ maxConcurrency: 1 });
    const url = await listen(
      scheduled(llmApp().app, { scheduler, tenant: (req) => String(req.headers["x-tenant"]) }),
    );
    const response = await fetch(`${url}/v1/slot`, {
      headers: { "x-tenant": "team-a", "x-request-id": "r1" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ tenant: "team-a", id: "r1", same: true });
    expect(response.headers.get("server-timing")).toMatch(/^queue;dur=/);
    await until(() => scheduler.metrics().running === 0);
    expect(scheduler.metrics().completed).toBe(1);
  });

  it("holds the slot while the handler streams, until its last byte", async () => {
    scheduler = createScheduler({ maxConcurrency: 1 });
    const { app, openAll } = llmApp();
    const url = await listen(scheduled(app, { scheduler }));
    const response = await fetch(`${url}/v1/stream`);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: first\n\n");
    expect(scheduler.metrics().running).toBe(1);
    openAll();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe("data: last\n\n");
    await until(() => scheduler.metrics().running === 0);
    expect(scheduler.metrics()).toMatchObject({ completed: 1, failed: 0 });
  });

  it("aborts the signal when the client leaves mid-stream, and frees the slot exactly once", async () => {
    scheduler = createScheduler({ maxConcurrency: 1 });
    const released = releases(scheduler);
    const url = await listen(scheduled(llmApp().app, { scheduler }));
    const client = httpRequest(`${url}/v1/stream`);
    const firstChunk = new Promise<void>((resolve) =>
      client.on("response", (response) => response.once("data", () => resolve())),
    );
    client.on("error", () => undefined);
    client.end();
    await firstChunk;
    expect(scheduler.metrics().running).toBe(1);
    client.destroy();
    await until(() => scheduler.metrics().running === 0);
    await new Promise((resolve) => setTimeout(resolve, 20)); // room for a second release, were there one
    expect(released()).toBe(1);
    expect(scheduler.metrics()).toMatchObject({ running: 0, failed: 1 });
  });

  it("answers a full queue with 429, Retry-After and an OpenAI-style body", async () => {
    scheduler = createScheduler({
      maxConcurrency: 1,
      priorities: { interactive: { maxQueue: 1 }, batch: {} },
    });
    const { app, openAll } = llmApp();
    const url = await listen(scheduled(app, { scheduler }));
    const first = fetch(`${url}/v1/wait`);
    await until(() => scheduler.metrics().running === 1);
    const second = fetch(`${url}/v1/wait`);
    await until(() => scheduler.metrics().queued === 1);
    const refused = await fetch(`${url}/v1/wait`, { headers: { authorization: "Bearer sk-secret" } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(refused.headers.get("retry-after-ms")).toMatch(/^\d+$/);
    const body = await refused.text();
    expect(JSON.parse(body)).toMatchObject({ error: { code: "QUEUE_FULL", type: "rate_limit_exceeded" } });
    expect(body).not.toContain("sk-secret");
    openAll();
    expect((await first).status).toBe(200);
    await until(() => scheduler.metrics().running === 1);
    openAll();
    expect((await second).status).toBe(200);
  });

  it("answers a run timeout with 504 JSON and frees the slot once the handler ends", async () => {
    scheduler = createScheduler({ maxConcurrency: 1 });
    const url = await listen(scheduled(llmApp().app, { scheduler, timeoutMs: 30 }));
    const response = await fetch(`${url}/v1/wait`);
    expect(response.status).toBe(504);
    expect(await response.json()).toMatchObject({ error: { code: "RUN_TIMEOUT", type: "timeout" } });
    await until(() => scheduler.metrics().running === 0);
  });

  it("answers next(error) with Express's 500 and releases the slot as failed", async () => {
    scheduler = createScheduler({ maxConcurrency: 1 });
    const url = await listen(scheduled(llmApp().app, { scheduler }));
    const response = await fetch(`${url}/v1/fail`);
    expect(response.status).toBe(500);
    await until(() => scheduler.metrics().running === 0);
    expect(scheduler.metrics()).toMatchObject({ completed: 0, failed: 1 });
  });

  it("answers a mapping function that throws with a bare 500, holding no slot", async () => {
    scheduler = createScheduler({ maxConcurrency: 1 });
    const failing = scheduled(llmApp().app, {
      scheduler,
      tenant: () => Promise.reject(new Error("no tenant")),
    });
    const response = await fetch(`${await listen(failing)}/v1/slot`);
    expect(response.status).toBe(500);
    expect(scheduler.metrics()).toMatchObject({ running: 0, started: 0 });
  });

  it("answers with a bare 500 when the app throws, and releases the slot", async () => {
    scheduler = createScheduler({ maxConcurrency: 1 });
    const throwing = () => {
      throw new Error("not an app");
    };
    const response = await fetch(`${await listen(scheduled(throwing, { scheduler }))}/`);
    expect(response.status).toBe(500);
    await until(() => scheduler.metrics().running === 0);
    expect(scheduler.metrics().failed).toBe(1);
  });

  it("mounted in a parent app, keeps the parent's res.locals and lets unserved paths fall through", async () => {
    scheduler = createScheduler({ maxConcurrency: 1 });
    const parent = express();
    parent.use((_req, res, next) => {
      res.locals.mark = "parent";
      next();
    });
    parent.use("/api", scheduled(llmApp().app, { scheduler }));
    parent.get("/api/elsewhere", (req, res) =>
      res.json({ mark: res.locals.mark, slot: req.llmScheduler !== undefined }),
    );
    const url = await listen(parent);
    expect(await (await fetch(`${url}/api/v1/slot`)).json()).toMatchObject({ same: true });
    expect(await (await fetch(`${url}/api/elsewhere`)).json()).toEqual({ mark: "parent", slot: true });
    await until(() => scheduler.metrics().running === 0);
    expect(scheduler.metrics().completed).toBe(2);
  });

  it("rejects an unknown option key and exposes its scheduler", () => {
    scheduler = createScheduler();
    expect(() => scheduled(llmApp().app, { scheduler, timeout: 5 } as never)).toThrow(/timeout/);
    expect(scheduled(llmApp().app, { scheduler }).scheduler).toBe(scheduler);
  });
});

/** Polls `condition` every few milliseconds until it holds (at most 5 s). */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

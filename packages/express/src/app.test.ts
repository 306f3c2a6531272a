import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import express from "express";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { schedulerMiddleware } from "./middleware.js";

/** The app a user would test: the middleware in front of an LLM-like route that waits until told. */
function gateway(scheduler: Scheduler, options: { timeoutMs?: number } = {}) {
  const gates: Array<() => void> = [];
  const app = express();
  app.use(
    schedulerMiddleware({
      scheduler,
      ...options,
      tenant: (req) => (req.get("x-api-key") === "team-a-key" ? "team-a" : "anonymous"),
    }),
  );
  app.get("/v1/answer", async (req, res) => {
    const { signal, tenant } = req.llmScheduler!;
    await new Promise<void>((resolve) => {
      gates.push(resolve);
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    if (res.headersSent) return void res.end(); // answered for us (run timeout): end our part all the same
    res.json({ tenant });
  });
  return {
    app,
    openAll: () => {
      for (const open of gates.splice(0)) open();
    },
  };
}

let scheduler: Scheduler;
afterEach(async () => {
  await scheduler.close({ timeoutMs: 100 });
});

describe("an Express gateway, tested with supertest", () => {
  it("answers through the scheduler, with the tenant mapping and Server-Timing", async () => {
    scheduler = createScheduler({ maxConcurrency: 1 });
    const { app, openAll } = gateway(scheduler);
    const pending = request(app).get("/v1/answer").set("x-api-key", "team-a-key");
    const answer = pending.then((response) => response);
    await until(() => scheduler.metrics().running === 1);
    openAll();
    const response = await answer;
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ tenant: "team-a" });
    expect(response.headers["server-timing"]).toMatch(/^queue;dur=/);
  });

  it("answers a full queue with 429, Retry-After and an OpenAI-style body", async () => {
    scheduler = createScheduler({
      maxConcurrency: 1,
      priorities: { interactive: { maxQueue: 1 }, batch: {} },
    });
    const { app, openAll } = gateway(scheduler);
    const first = request(app)
      .get("/v1/answer")
      .then((response) => response);
    await until(() => scheduler.metrics().running === 1);
    const second = request(app)
      .get("/v1/answer")
      .then((response) => response);
    await until(() => scheduler.metrics().queued === 1);
    const refused = await request(app).get("/v1/answer");
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    expect(refused.body).toMatchObject({ error: { code: "QUEUE_FULL", type: "rate_limit_exceeded" } });
    openAll();
    expect((await first).status).toBe(200);
    await until(() => scheduler.metrics().running === 1);
    openAll();
    expect((await second).status).toBe(200);
  });

  it("answers an unknown x-priority with 400 JSON", async () => {
    scheduler = createScheduler();
    const response = await request(gateway(scheduler).app).get("/v1/answer").set("x-priority", "vip");
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { code: "INVALID_PRIORITY" } });
  });

  it("answers a run timeout with 504 JSON", async () => {
    scheduler = createScheduler();
    const response = await request(gateway(scheduler, { timeoutMs: 30 }).app).get("/v1/answer");
    expect(response.status).toBe(504);
    expect(response.body).toMatchObject({ error: { code: "RUN_TIMEOUT", type: "timeout" } });
    await until(() => scheduler.metrics().running === 0);
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

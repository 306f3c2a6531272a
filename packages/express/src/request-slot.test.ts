import { IncomingMessage } from "node:http";
import type { RequestSlot } from "@llm-scheduler/adapter-kit";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import express, { type Request, type Response } from "express";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { schedulerMiddleware } from "./middleware.js";
import { setRequestSlot } from "./request-slot.js";

/** What a handler saw of `req.llmScheduler`. */
function report(req: Request, res: Response) {
  const slot = req.llmScheduler;
  res.json({
    priority: slot?.priority ?? null,
    own: Object.hasOwn(req, "llmScheduler"),
    sameAsLocals: slot === res.locals.llmScheduler,
  });
}

let scheduler: Scheduler;
afterEach(async () => {
  await scheduler.close({ timeoutMs: 100 });
});

describe("req.llmScheduler on Express requests", () => {
  it("is an own property of the request and the slot of res.locals", async () => {
    scheduler = createScheduler();
    const app = express();
    app.get("/scheduled", schedulerMiddleware({ scheduler }), report);
    app.get("/plain", report);
    const scheduled = await request(app).get("/scheduled").set("x-priority", "batch");
    expect(scheduled.body).toEqual({ priority: "batch", own: true, sameAsLocals: true });
    const plain = await request(app).get("/plain");
    expect(plain.body).toEqual({ priority: null, own: false, sameAsLocals: true });
  });

  it("is seen by a mounted app's handler", async () => {
    scheduler = createScheduler();
    const inner = express();
    inner.get("/answer", report);
    const app = express();
    app.use("/api", schedulerMiddleware({ scheduler }), inner);
    expect((await request(app).get("/api/answer")).body).toMatchObject({ priority: "interactive" });
  });

  it("is seen by the parent app's handler once a mounted app's chain falls through", async () => {
    scheduler = createScheduler();
    const inner = express();
    inner.use(schedulerMiddleware({ scheduler }));
    const app = express();
    app.use("/api", inner);
    app.get("/api/answer", report);
    expect((await request(app).get("/api/answer")).body).toMatchObject({ priority: "interactive" });
  });

  it("keeps what a handler assigns for that request only", async () => {
    scheduler = createScheduler();
    const app = express();
    app.get("/set", (req, res) => {
      const before = req.llmScheduler;
      req.llmScheduler = { priority: "mine" } as RequestSlot;
      res.json({
        before: before ?? null,
        after: req.llmScheduler?.priority,
        own: Object.hasOwn(req, "llmScheduler"),
      });
    });
    app.get("/plain", report);
    expect((await request(app).get("/set")).body).toEqual({
      before: null,
      after: "mine",
      own: true,
    });
    expect((await request(app).get("/plain")).body).toMatchObject({ priority: null });
  });
});

describe("setRequestSlot", () => {
  const slot = { priority: "interactive" } as RequestSlot;

  it("adds an own property and sets res.locals, made when there is none yet", () => {
    const req: { llmScheduler?: RequestSlot } = {};
    const bare: { locals?: { llmScheduler?: RequestSlot } } = {};
    setRequestSlot(req, bare, slot);
    expect(Object.hasOwn(req, "llmScheduler")).toBe(true);
    expect(bare.locals?.llmScheduler).toBe(slot);
    const locals = { user: "kept" } as { llmScheduler?: RequestSlot; user?: string };
    setRequestSlot({}, { locals }, slot);
    expect(locals).toEqual({ user: "kept", llmScheduler: slot });
  });

  it("never touches a prototype: Node's and Express's requests stay as they were", () => {
    const req = Object.create(express.request) as { llmScheduler?: RequestSlot };
    setRequestSlot(req, { locals: {} }, slot);
    expect(Object.hasOwn(req, "llmScheduler")).toBe(true);
    expect(Object.hasOwn(express.request, "llmScheduler")).toBe(false);
    expect(Object.hasOwn(IncomingMessage.prototype, "llmScheduler")).toBe(false);
  });
});

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
  it("is read from the request prototype, not an own property, and is the slot of res.locals", async () => {
    scheduler = createScheduler();
    const app = express();
    app.get("/scheduled", schedulerMiddleware({ scheduler }), report);
    app.get("/plain", report);
    const scheduled = await request(app).get("/scheduled").set("x-priority", "batch");
    expect(scheduled.body).toEqual({ priority: "batch", own: false, sameAsLocals: true });
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

  it("keeps what a handler assigns, for that request only, in res.locals too", async () => {
    scheduler = createScheduler();
    const app = express();
    app.get("/set", (req, res) => {
      const before = req.llmScheduler;
      req.llmScheduler = { priority: "mine" } as RequestSlot;
      res.json({
        before: before ?? null,
        after: req.llmScheduler?.priority,
        locals: res.locals.llmScheduler?.priority,
        own: Object.hasOwn(req, "llmScheduler"),
      });
    });
    app.get("/plain", report);
    expect((await request(app).get("/set")).body).toEqual({
      before: null,
      after: "mine",
      locals: "mine",
      own: false,
    });
    expect((await request(app).get("/plain")).body).toMatchObject({ priority: null });
  });
});

describe("setRequestSlot", () => {
  const slot = { priority: "interactive" } as RequestSlot;

  it("adds an own property to a request that Express did not make, and sets res.locals", () => {
    const plain: { llmScheduler?: RequestSlot } = {};
    const res = { locals: {} as { llmScheduler?: RequestSlot } };
    setRequestSlot(plain, res, slot);
    expect(Object.hasOwn(plain, "llmScheduler")).toBe(true);
    expect(res.locals.llmScheduler).toBe(slot);
    const node = Object.create(IncomingMessage.prototype) as { llmScheduler?: RequestSlot };
    setRequestSlot(node, { locals: {} }, slot);
    expect(Object.hasOwn(node, "llmScheduler")).toBe(true);
    expect(Object.hasOwn(IncomingMessage.prototype, "llmScheduler")).toBe(false);
  });

  it("serves an Express-shaped request from the prototype right above IncomingMessage's, through req.res.locals", () => {
    const base = Object.create(IncomingMessage.prototype) as object;
    const appRequest = Object.create(base) as object;
    const req = Object.create(appRequest) as { llmScheduler?: RequestSlot; res?: object };
    const res = { locals: {} as { llmScheduler?: RequestSlot } };
    req.res = res;
    setRequestSlot(req, res, slot);
    expect(Object.hasOwn(req, "llmScheduler")).toBe(false);
    expect(Object.hasOwn(base, "llmScheduler")).toBe(true);
    expect(req.llmScheduler).toBe(slot);
    expect((Object.create(appRequest) as { llmScheduler?: RequestSlot }).llmScheduler).toBeUndefined();
  });

  it("gives an Express-shaped request without a response an own property when one is assigned", () => {
    const base = Object.create(IncomingMessage.prototype) as object;
    const req = Object.create(Object.create(base) as object) as { llmScheduler?: RequestSlot; res?: object };
    req.res = { locals: {} };
    setRequestSlot(req, req.res as { locals: object }, slot); // installs the accessor on `base`
    const orphan = Object.create(Object.create(base) as object) as { llmScheduler?: RequestSlot };
    orphan.llmScheduler = slot;
    expect(Object.hasOwn(orphan, "llmScheduler")).toBe(true);
    expect(orphan.llmScheduler).toBe(slot);
  });
});

import {
  FakeNodeResponse,
  settle as flush,
  oneSlotScheduler as tiny,
} from "@llm-scheduler/adapter-kit/testing";
import { createScheduler, ErrorCode, SchedulerError } from "@llm-scheduler/core";
import type { NextFunction, Request, Response } from "express";
import { describe, expect, it, vi } from "vitest";
import { schedulerMiddleware } from "./middleware.js";

/** Just enough of Express's `res` for the middleware, so every path can be driven by hand. */
class FakeResponse extends FakeNodeResponse {
  headersSent = false;
  locals: Record<string, unknown> = {};
  headers: Record<string, string> = {};
  body: string | undefined;

  setHeader(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }

  getHeaderNames(): string[] {
    return Object.keys(this.headers);
  }

  removeHeader(name: string): void {
    delete this.headers[name];
  }

  writeHead(status: number, headers: Record<string, string>): this {
    this.statusCode = status;
    Object.assign(this.headers, headers);
    this.headersSent = true;
    return this;
  }

  end(body?: string): this {
    this.body = body;
    this.finish();
    return this;
  }
}

function exchange(headers: Record<string, string> = {}) {
  const req = { headers, get: (name: string) => headers[name] } as unknown as Request & {
    llmScheduler?: unknown;
  };
  const res = new FakeResponse();
  return { req, res, asRes: res as unknown as Response };
}

function nextSpy() {
  let resolve!: (error: unknown) => void;
  const called = new Promise<unknown>((r) => {
    resolve = r;
  });
  const next = vi.fn((error?: unknown) => resolve(error)) as unknown as NextFunction &
    ReturnType<typeof vi.fn>;
  return { next, called };
}

/** Runs the middleware for one request and waits until it has called `next` (the request holds a slot). */
async function granted(
  middleware: ReturnType<typeof schedulerMiddleware>,
  headers: Record<string, string> = {},
) {
  const { req, res, asRes } = exchange(headers);
  const { next, called } = nextSpy();
  middleware(req, asRes, next);
  expect(await called).toBeUndefined();
  return { req, res };
}

describe("schedulerMiddleware (Express)", () => {
  it("calls next with the slot on req and res.locals, sets Server-Timing, and releases when the response finishes", async () => {
    const scheduler = tiny();
    const middleware = schedulerMiddleware({ scheduler });
    const { req, res } = await granted(middleware, { "x-request-id": "r1" });
    expect(req.llmScheduler).toMatchObject({
      id: "r1",
      priority: "interactive",
      tenant: "default",
      waitMs: 0,
    });
    expect(res.locals.llmScheduler).toBe(req.llmScheduler);
    expect(res.headers["server-timing"]).toBe("queue;dur=0.0");
    expect(scheduler.metrics().running).toBe(1);
    res.end("done");
    expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 1, failed: 0 });
  });

  it("counts a response sent with a 5xx status as failed", async () => {
    const scheduler = tiny();
    const { res } = await granted(schedulerMiddleware({ scheduler }));
    res.statusCode = 502;
    res.end();
    expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 0, failed: 1 });
  });

  it("aborts the handler's signal when the client goes away, and frees the slot once the handler ends", async () => {
    const scheduler = tiny();
    const { res } = await granted(schedulerMiddleware({ scheduler }));
    const slot = res.locals.llmScheduler as { signal: AbortSignal };
    res.drop();
    expect(slot.signal.aborted).toBe(true);
    expect(scheduler.metrics().running).toBe(1); // the handler may still be talking to the upstream
    res.end();
    expect(scheduler.metrics()).toMatchObject({ running: 0, failed: 1 });
  });

  it("answers a run timeout with 504 JSON when nothing was sent, holding the slot until the handler ends", async () => {
    vi.useFakeTimers();
    try {
      const scheduler = createScheduler({ maxConcurrency: 1 });
      const { res } = await granted(schedulerMiddleware({ scheduler, timeoutMs: 50 }));
      await vi.advanceTimersByTimeAsync(60);
      expect(res.statusCode).toBe(504);
      expect(JSON.parse(res.body!)).toMatchObject({ error: { code: "RUN_TIMEOUT", type: "timeout" } });
      expect(scheduler.metrics().running).toBe(1);
      res.end();
      expect(scheduler.metrics().running).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("takes a queued request out when its client goes away, and never calls next", async () => {
    const scheduler = tiny();
    const middleware = schedulerMiddleware({ scheduler });
    const first = await granted(middleware);
    const second = exchange();
    const secondNext = vi.fn();
    middleware(second.req, second.asRes, secondNext);
    await flush();
    expect(scheduler.metrics().queued).toBe(1);
    second.res.drop();
    await flush();
    expect(scheduler.metrics().queued).toBe(0);
    first.res.end();
    await flush();
    expect(secondNext).not.toHaveBeenCalled();
    expect(second.res.body).toBeUndefined();
    expect(scheduler.metrics()).toMatchObject({ running: 0, started: 1 });
  });

  it("answers a full queue with 429, Retry-After, retry-after-ms and an OpenAI-style JSON body", async () => {
    const scheduler = tiny();
    const middleware = schedulerMiddleware({ scheduler });
    await granted(middleware);
    middleware(exchange().req, exchange().asRes, vi.fn());
    const refused = exchange();
    middleware(refused.req, refused.asRes, vi.fn());
    await flush();
    expect(refused.res.statusCode).toBe(429);
    expect(refused.res.headers).toMatchObject({
      "content-type": "application/json; charset=utf-8",
      "retry-after": expect.stringMatching(/^[1-9]\d*$/),
      "retry-after-ms": expect.stringMatching(/^\d+$/),
    });
    expect(JSON.parse(refused.res.body!)).toMatchObject({ error: { code: "QUEUE_FULL" } });
  });

  it("lets onRejected answer instead, and hands its failure to next", async () => {
    const scheduler = tiny();
    await scheduler.close();
    const onRejected = vi.fn((error: SchedulerError, _req: Request, res: Response) => {
      res.writeHead(503, { "x-reason": error.code }).end("closed");
    });
    const { req, res, asRes } = exchange();
    schedulerMiddleware({ scheduler, onRejected })(req, asRes, vi.fn());
    await flush();
    expect(onRejected).toHaveBeenCalledTimes(1);
    expect(res.headers["x-reason"]).toBe(ErrorCode.CLOSED);

    const failure = new Error("onRejected broke");
    const broken = exchange();
    const { next, called } = nextSpy();
    schedulerMiddleware({ scheduler, onRejected: async () => Promise.reject(failure) })(
      broken.req,
      broken.asRes,
      next,
    );
    expect(await called).toBe(failure);
  });

  it("passes an error thrown by a mapping function to next, taking no slot", async () => {
    const scheduler = tiny();
    const failure = new Error("no key");
    const { req, asRes } = exchange();
    const { next, called } = nextSpy();
    schedulerMiddleware({
      scheduler,
      tenant: () => {
        throw failure;
      },
    })(req, asRes, next);
    expect(await called).toBe(failure);
    expect(scheduler.metrics().started).toBe(0);
  });

  it("answers an unknown x-priority with 400", async () => {
    const { req, res, asRes } = exchange({ "x-priority": "vip" });
    const next = vi.fn();
    schedulerMiddleware({ scheduler: tiny() })(req, asRes, next);
    await flush();
    expect(res.statusCode).toBe(400);
    expect(next).not.toHaveBeenCalled();
  });

  it("exposes its own scheduler when none is given, and checks options at construction", () => {
    expect(schedulerMiddleware().scheduler.options.maxConcurrency).toBe(8);
    expect(() => schedulerMiddleware({ timeoutMs: -1 })).toThrow(
      "Expected `timeoutMs` to be a positive number of milliseconds or Infinity, got `-1` (number)",
    );
    expect(() => schedulerMiddleware({ priority: "batch" } as never)).toThrow(SchedulerError);
  });
});

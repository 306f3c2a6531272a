import {
  FakeNodeResponse,
  settle as flush,
  oneSlotScheduler as tiny,
} from "@llm-scheduler/adapter-kit/testing";
import type { Context } from "koa";
import { describe, expect, it, vi } from "vitest";
import { schedulerMiddleware } from "./middleware.js";

/** Node's response under Koa's `ctx.res`: the middleware sets `Server-Timing` on it directly. */
class FakeResponse extends FakeNodeResponse {
  constructor(readonly headers: Record<string, string>) {
    super();
  }

  setHeader(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }
}

interface FakeContext {
  readonly req: { readonly headers: Record<string, string> };
  readonly res: FakeResponse;
  readonly state: Record<string, unknown>;
  readonly headers: Record<string, string>;
  status: number;
  body: unknown;
  get(name: string): string;
  set(name: string | Record<string, string>, value?: string): void;
}

function context(requestHeaders: Record<string, string> = {}): FakeContext & { ctx: Context } {
  const headers: Record<string, string> = {};
  const fake: FakeContext = {
    req: { headers: requestHeaders },
    res: new FakeResponse(headers),
    state: {},
    headers,
    status: 404,
    body: undefined,
    get: (name) => requestHeaders[name] ?? "",
    set(name, value) {
      if (typeof name === "string") this.headers[name] = value!;
      else Object.assign(this.headers, name);
    },
  };
  return Object.assign(fake, { ctx: fake as unknown as Context });
}

describe("schedulerMiddleware (Koa)", () => {
  it("holds the slot after downstream returns until the response has been sent", async () => {
    const scheduler = tiny();
    const fake = context({ "x-request-id": "k1" });
    await schedulerMiddleware({ scheduler })(fake.ctx, async () => {
      fake.body = "a stream still being sent";
    });
    expect(fake.state.llmScheduler).toMatchObject({ id: "k1", priority: "interactive", waitMs: 0 });
    expect(fake.headers["server-timing"]).toBe("queue;dur=0.0");
    expect(scheduler.metrics().running).toBe(1);
    fake.res.finish();
    expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 1 });
  });

  it("holds the slot while downstream runs even if the response ends first, then releases once", async () => {
    const scheduler = tiny();
    const fake = context();
    let finishDownstream!: () => void;
    const downstream = new Promise<void>((resolve) => {
      finishDownstream = resolve;
    });
    const running = schedulerMiddleware({ scheduler })(fake.ctx, () => downstream);
    await flush();
    fake.res.drop();
    expect((fake.state.llmScheduler as { signal: AbortSignal }).signal.aborted).toBe(true);
    expect(scheduler.metrics().running).toBe(1);
    finishDownstream();
    await running;
    // a client that left counts as failed (code ABORTED in the `failed` event), never as completed
    expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 0, failed: 1 });
  });

  it("rethrows what downstream throws and counts the request as failed", async () => {
    const scheduler = tiny();
    const fake = context();
    const failure = new Error("handler failed");
    await expect(
      schedulerMiddleware({ scheduler })(fake.ctx, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    fake.res.finish(500);
    expect(scheduler.metrics()).toMatchObject({ running: 0, failed: 1 });
  });

  it("never runs downstream for a client that left while queued", async () => {
    const scheduler = tiny();
    const middleware = schedulerMiddleware({ scheduler });
    const first = context();
    await middleware(first.ctx, async () => undefined);
    const second = context();
    const downstream = vi.fn(async () => undefined);
    const queued = middleware(second.ctx, downstream);
    await flush();
    expect(scheduler.metrics().queued).toBe(1);
    second.res.drop();
    await queued;
    first.res.finish();
    expect(downstream).not.toHaveBeenCalled();
    expect(second.body).toBeUndefined();
    expect(scheduler.metrics()).toMatchObject({ running: 0, queued: 0, started: 1 });
  });

  it("answers a full queue with 429, both retry headers and an OpenAI-style JSON body", async () => {
    const scheduler = tiny();
    const middleware = schedulerMiddleware({ scheduler });
    await middleware(context().ctx, async () => undefined);
    void middleware(context().ctx, async () => undefined);
    const refused = context();
    await middleware(refused.ctx, async () => undefined);
    const seconds = Number(refused.headers["retry-after"]);
    const milliseconds = Number(refused.headers["retry-after-ms"]);
    expect([refused.status, refused.headers["content-type"]]).toEqual([
      429,
      "application/json; charset=utf-8",
    ]);
    expect(Number.isInteger(seconds) && seconds >= 1 && seconds * 1000 >= milliseconds).toBe(true);
    expect(JSON.parse(refused.body as string).error.type).toBe("rate_limit_exceeded");
  });

  it("lets onRejected set the response instead", async () => {
    const scheduler = tiny();
    await scheduler.close();
    const fake = context();
    await schedulerMiddleware({
      scheduler,
      onRejected: (error, ctx) => {
        ctx.status = 503;
        ctx.body = `closed: ${error.code}`;
      },
    })(fake.ctx, async () => undefined);
    expect(fake.status).toBe(503);
    expect(fake.body).toBe("closed: CLOSED");
  });

  it("rethrows an error from a mapping function, taking no slot", async () => {
    const scheduler = tiny();
    const failure = new Error("no key");
    const middleware = schedulerMiddleware({
      scheduler,
      priority: async () => {
        throw failure;
      },
    });
    await expect(middleware(context().ctx, async () => undefined)).rejects.toBe(failure);
    expect(scheduler.metrics().started).toBe(0);
  });

  it("checks options at construction and exposes its scheduler", () => {
    expect(() => schedulerMiddleware({ cost: 2 } as never)).toThrow(
      "Expected `cost` to be a function, got `2` (number)",
    );
    expect(schedulerMiddleware().scheduler.options.priorities.map((p) => p.name)).toEqual([
      "interactive",
      "batch",
    ]);
  });
});

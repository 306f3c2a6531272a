import { settle, oneSlotScheduler as tiny } from "@llm-scheduler/adapter-kit/testing";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { LlmSchedulerEnv } from "./env.js";
import { schedulerMiddleware } from "./middleware.js";
import type { HonoSchedulerOptions } from "./options.js";

/** An app whose `/stream` route streams chunks the test pushes, and whose other routes answer at once. */
function app(options: HonoSchedulerOptions) {
  const hono = new Hono<LlmSchedulerEnv>();
  let push!: ReadableStreamDefaultController<string>;
  hono.use("*", schedulerMiddleware(options));
  hono.onError((error, c) => c.text(error.message, 500));
  hono.get("/slot", (c) => {
    const { id, priority, tenant, waitMs } = c.get("llmScheduler");
    return c.json({ id, priority, tenant, waitMs });
  });
  hono.get("/stream", () => {
    const body = new ReadableStream<string>({
      start(controller) {
        push = controller;
      },
    });
    return new Response(body.pipeThrough(new TextEncoderStream()));
  });
  hono.get("/throw", () => {
    throw new Error("handler failed");
  });
  return { hono, push: () => push };
}

describe("schedulerMiddleware (Hono, web standards)", () => {
  it("exposes the slot through c.get and adds Server-Timing", async () => {
    const scheduler = tiny();
    const { hono } = app({ scheduler });
    const response = await hono.request("/slot", {
      headers: { "x-request-id": "h1", "x-priority": "batch" },
    });
    expect(await response.json()).toEqual({ id: "h1", priority: "batch", tenant: "default", waitMs: 0 });
    expect(response.headers.get("server-timing")).toBe("queue;dur=0.0");
    expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 1 });
  });

  it("holds the slot until a streamed body has been read to its end", async () => {
    const scheduler = tiny();
    const { hono, push } = app({ scheduler });
    const response = await hono.request("/stream");
    const reader = response.body!.getReader();
    push().enqueue("one");
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("one");
    expect(scheduler.metrics().running).toBe(1);
    push().close();
    expect((await reader.read()).done).toBe(true);
    expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 1 });
  });

  it("releases the slot when the client cancels the body", async () => {
    const scheduler = tiny();
    const { hono } = app({ scheduler });
    const response = await hono.request("/stream");
    await response.body!.cancel();
    expect(scheduler.metrics().running).toBe(0);
  });

  it("releases a HEAD request's slot at once: Hono drops that body unread", async () => {
    const scheduler = tiny();
    const { hono } = app({ scheduler });
    const response = await hono.request("/stream", { method: "HEAD" });
    expect(response.body).toBeNull();
    expect(scheduler.metrics().running).toBe(0);
  });

  it("counts a thrown handler as failed, releasing once", async () => {
    const scheduler = tiny();
    const { hono } = app({ scheduler });
    const response = await hono.request("/throw");
    expect(response.status).toBe(500);
    await response.text();
    expect(scheduler.metrics()).toMatchObject({ running: 0, failed: 1, completed: 0 });
  });

  it("answers a closed scheduler with 503 JSON, or with onRejected's response", async () => {
    const scheduler = tiny();
    await scheduler.close();
    const plain = await app({ scheduler }).hono.request("/slot");
    expect(plain.status).toBe(503);
    expect(plain.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await plain.json()).toMatchObject({ error: { code: "CLOSED", type: "server_unavailable" } });
    const custom = await app({
      scheduler,
      onRejected: (error, c) => c.text(`busy (${error.code})`, 529 as 503),
    }).hono.request("/slot");
    expect(custom.status).toBe(529);
    expect(await custom.text()).toBe("busy (CLOSED)");
  });

  it("answers an unknown x-priority with 400", async () => {
    const response = await app({ scheduler: tiny() }).hono.request("/slot", {
      headers: { "x-priority": "vip" },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "INVALID_PRIORITY" } });
  });

  it("takes a queued request out when the client's signal aborts", async () => {
    const scheduler = tiny();
    const { hono } = app({ scheduler });
    const holder = await hono.request("/stream");
    const client = new AbortController();
    const queued = hono.request("/slot", { signal: client.signal });
    await settle();
    expect(scheduler.metrics().queued).toBe(1);
    client.abort();
    expect((await queued).status).toBe(499);
    await holder.body!.cancel();
    expect(scheduler.metrics()).toMatchObject({ running: 0, queued: 0, started: 1 });
  });

  it("checks options at construction", () => {
    expect(() => schedulerMiddleware({ timeoutMs: Number.NaN })).toThrow("Expected `timeoutMs`");
    expect(() => schedulerMiddleware({ tenants: () => "x" } as never)).toThrow(
      "Unknown option `tenants`; did you mean `tenant`?",
    );
  });
});

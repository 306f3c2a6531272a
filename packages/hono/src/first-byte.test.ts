import { settle } from "@llm-scheduler/adapter-kit/testing";
import { createScheduler, type SchedulerEvents, VirtualClock } from "@llm-scheduler/core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { LlmSchedulerEnv } from "./env.js";
import { schedulerMiddleware } from "./middleware.js";

describe("schedulerMiddleware (Hono, web standards) and the first byte", () => {
  it("reports the first chunk of the body once, with the request's id and the time until it was read", async () => {
    const clock = new VirtualClock();
    const scheduler = createScheduler({ maxConcurrency: 1, clock });
    const seen: Array<SchedulerEvents["firstByte"]> = [];
    scheduler.on("firstByte", (event) => seen.push(event));
    const app = new Hono<LlmSchedulerEnv>();
    app.use("*", schedulerMiddleware({ scheduler }));
    app.get("/stream", () => new Response(["a", "b", "c"].join("\n")));
    const response = await app.request("/stream", { headers: { "x-request-id": "h-ttfb" } });
    expect(seen).toEqual([]); // nothing has been read yet
    clock.advance(30); // the body's first chunk is read 30 ms after the slot was granted
    expect(await response.text()).toBe("a\nb\nc");
    expect(seen).toMatchObject([{ id: "h-ttfb", priority: "interactive", waitMs: 0, ttfbMs: 30 }]);
    expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 1 });
  });
});

describe("schedulerMiddleware (Hono) holds a preemptible answer until its body's first chunk", () => {
  function preemptingApp() {
    const scheduler = createScheduler({
      clock: new VirtualClock(),
      maxConcurrency: 1,
      priorities: { interactive: { preempts: ["batch"] }, batch: {} },
    });
    let source!: ReadableStreamDefaultController<string>;
    const cancelled: unknown[] = [];
    let entered = false;
    const app = new Hono<LlmSchedulerEnv>();
    app.use("*", schedulerMiddleware({ scheduler }));
    app.get("/stream", () => {
      entered = true;
      const body = new ReadableStream<string>({
        start(controller) {
          source = controller;
        },
        cancel(reason) {
          cancelled.push(reason);
        },
      }).pipeThrough(new TextEncoderStream());
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    app.get("/chat", (c) => c.text("hi"));
    return { app, scheduler, cancelled, source: () => source, entered: () => entered };
  }

  it("answers 503 and cancels the body when preempted after the handler returned, before any chunk", async () => {
    const { app, scheduler, cancelled, entered } = preemptingApp();
    const batch = app.request("/stream", { headers: { "x-priority": "batch" } });
    await settle();
    expect(entered()).toBe(true);
    const chat = app.request("/chat");
    const answer = await batch;
    expect(answer.status).toBe(503);
    expect(answer.headers.get("x-preempted")).toBe("1");
    expect(await answer.json()).toMatchObject({ error: { code: "PREEMPTED" } });
    expect(cancelled).toHaveLength(1);
    expect(await (await chat).text()).toBe("hi");
    expect(scheduler.metrics().priorities.batch).toMatchObject({ preempted: 1 });
  });

  it("streams the whole body once its first chunk came, and is no longer preemptible", async () => {
    const { app, scheduler, source } = preemptingApp();
    const batch = app.request("/stream", { headers: { "x-priority": "batch" } });
    await settle();
    source().enqueue("data: 1\n\n");
    const answer = await batch;
    expect(answer.status).toBe(200);
    const chat = app.request("/chat");
    await settle();
    source().enqueue("data: [DONE]\n\n");
    source().close();
    expect(await answer.text()).toBe("data: 1\n\ndata: [DONE]\n\n");
    expect(await (await chat).text()).toBe("hi");
    expect(scheduler.metrics().priorities.batch).toMatchObject({ preempted: 0 });
  });
});

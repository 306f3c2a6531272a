import { createScheduler, ErrorCode } from "@llm-scheduler/core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { scheduled, slotOf } from "./scheduled.js";

describe("scheduled(app)", () => {
  it("gives each request a slot the handler reads with slotOf, and frees it once the body is read", async () => {
    const scheduler = createScheduler({ maxConcurrency: 1 });
    const app = new Hono();
    app.get("/", (c) => c.json({ tenant: slotOf(c).tenant, held: slotOf(c).permit.held }));
    const wrapped = scheduled(app, {
      scheduler,
      tenant: (request) => request.headers.get("x-team") ?? "none",
    });
    expect(wrapped.scheduler).toBe(scheduler);
    const response = await wrapped.fetch(new Request("http://gateway/", { headers: { "x-team": "blue" } }));
    expect(response.headers.get("server-timing")).toMatch(/^queue;dur=/);
    expect(scheduler.metrics().running).toBe(1); // held until the body has been read
    expect(await response.json()).toEqual({ tenant: "blue", held: true });
    expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 1 });
  });

  it("answers a rejection with core's status and JSON error, before the app sees the request", async () => {
    const scheduler = createScheduler({ maxConcurrency: 1 });
    let seen = 0;
    const app = new Hono();
    app.get("/", (c) => {
      seen++;
      return c.text("ok");
    });
    const wrapped = scheduled(app, { scheduler });
    const refused = await wrapped.fetch(
      new Request("http://gateway/", { headers: { "x-priority": "urgent" } }),
    );
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: "INVALID_PRIORITY" } });
    expect(seen).toBe(0);
  });

  it("rejects unknown options and tells a request it did not schedule", () => {
    expect(() => scheduled(new Hono(), { tenants: () => "a" } as never)).toThrow(
      expect.objectContaining({ code: ErrorCode.INVALID_OPTION }),
    );
    expect(() => slotOf(new Request("http://gateway/"))).toThrow(TypeError);
  });
});

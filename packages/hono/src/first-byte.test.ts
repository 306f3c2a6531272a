import { oneSlotScheduler as tiny } from "@llm-scheduler/adapter-kit/testing";
import type { SchedulerEvents } from "@llm-scheduler/core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { LlmSchedulerEnv } from "./env.js";
import { schedulerMiddleware } from "./middleware.js";

describe("schedulerMiddleware (Hono, web standards) and the first byte", () => {
  it("reports the first chunk of the body once, with the request's id", async () => {
    const scheduler = tiny();
    const seen: Array<SchedulerEvents["firstByte"]> = [];
    scheduler.on("firstByte", (event) => seen.push(event));
    const app = new Hono<LlmSchedulerEnv>();
    app.use("*", schedulerMiddleware({ scheduler }));
    app.get("/stream", () => new Response(["a", "b", "c"].join("\n")));
    const response = await app.request("/stream", { headers: { "x-request-id": "h-ttfb" } });
    expect(seen).toEqual([]); // nothing has been read yet
    expect(await response.text()).toBe("a\nb\nc");
    expect(seen).toMatchObject([{ id: "h-ttfb", priority: "interactive", waitMs: 0 }]);
    expect(seen[0]!.ttfbMs).toBeGreaterThanOrEqual(0);
    expect(scheduler.metrics()).toMatchObject({ running: 0, completed: 1 });
  });
});

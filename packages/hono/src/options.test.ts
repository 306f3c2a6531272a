import { createScheduler } from "@llm-scheduler/core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { type HonoOptions, resolveHonoOptions } from "./options.js";

const scheduler = createScheduler({ maxConcurrency: 1 });
const noHeader = () => undefined;
const post = (body: unknown) =>
  new Request("http://a.test/v1/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("the Hono adapter's options: one type and one resolver for both shapes", () => {
  it("resolves the same options the same way for the middleware and for scheduled(app)", () => {
    const given = { scheduler, timeoutMs: 5_000, defaultMaxTokens: 64 } satisfies HonoOptions;
    const { tokens: _a, ...left } = resolveHonoOptions(given);
    const { tokens: _b, ...right } = resolveHonoOptions<"scheduled">(given, "scheduled");
    expect(right).toEqual(left);
  });

  it("refuses an unknown key with the same message in both shapes", () => {
    const message = (shape: "middleware" | "scheduled") => {
      try {
        resolveHonoOptions({ scheduler, timeoutMS: 1 } as never, shape);
      } catch (error) {
        return (error as Error).message;
      }
      return "no error";
    };
    expect(message("middleware")).toMatch(/timeoutMS/);
    expect(message("scheduled")).toBe(message("middleware"));
  });

  it("estimates tokens from a JSON body in both shapes, and leaves the body whole for the app", async () => {
    const body = { messages: [{ role: "user", content: "x".repeat(4_000) }] };
    const early = resolveHonoOptions({ scheduler, defaultMaxTokens: 0 }, "scheduled");
    const request = post(body);
    const fromRequest = await early.tokens?.(request, noHeader);
    expect(fromRequest).toBeGreaterThan(900);
    expect(await request.json()).toEqual(body);

    const middleware = resolveHonoOptions({ scheduler, defaultMaxTokens: 0 });
    let fromContext: number | undefined;
    const app = new Hono();
    app.post("/v1/chat", async (c) => {
      fromContext = await middleware.tokens?.(c, noHeader);
      return c.json(await c.req.json());
    });
    const answer = await app.request(post(body));
    expect(await answer.json()).toEqual(body);
    expect(fromContext).toBe(fromRequest);
  });
});

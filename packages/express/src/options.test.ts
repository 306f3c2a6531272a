import type { IncomingMessage } from "node:http";
import { createScheduler } from "@llm-scheduler/core";
import type { Request } from "express";
import { describe, expect, it } from "vitest";
import { type ExpressOptions, resolveExpressOptions } from "./options.js";

const scheduler = createScheduler({ maxConcurrency: 1 });

describe("the Express adapter's options: one type and one resolver for both shapes", () => {
  it("resolves the same options the same way for the middleware and for scheduled(app)", () => {
    const given = { scheduler, timeoutMs: 5_000, defaultMaxTokens: 64 } satisfies ExpressOptions;
    const middleware = resolveExpressOptions(given);
    const early = resolveExpressOptions<"scheduled">(given, "scheduled");
    // `tokens` is each shape's own estimate (below); everything else is the same
    const { tokens: _a, ...left } = middleware;
    const { tokens: _b, ...right } = early;
    expect(right).toEqual(left);
    expect(Object.keys(early).sort()).toEqual(Object.keys(middleware).sort());
  });

  it("refuses an unknown key with the same message in both shapes", () => {
    const wrong = { scheduler, timeoutMS: 1 } as never;
    const message = (shape: "middleware" | "scheduled") => {
      try {
        resolveExpressOptions(wrong, shape);
      } catch (error) {
        return (error as Error).message;
      }
      return "no error";
    };
    expect(message("middleware")).toMatch(/timeoutMS/);
    expect(message("scheduled")).toBe(message("middleware"));
  });

  it("estimates tokens from the parsed body in the middleware, from the declared length before Express", async () => {
    const body = { messages: [{ role: "user", content: "x".repeat(4_000) }] };
    const noHeader = () => undefined;
    const middleware = resolveExpressOptions({ scheduler, defaultMaxTokens: 0 });
    const early = resolveExpressOptions({ scheduler, defaultMaxTokens: 0 }, "scheduled");
    expect(middleware.tokensEstimated && early.tokensEstimated).toBe(true);
    const fromBody = await middleware.tokens?.({ body } as Request, noHeader);
    const fromLength = await early.tokens?.({ body } as unknown as IncomingMessage, noHeader);
    expect(fromBody).toBeGreaterThan(900);
    expect(fromLength).toBeLessThan(fromBody as number);
  });
});

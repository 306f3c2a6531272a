import { describe, expect, it } from "vitest";
import { givenRequestId, isRetryRequest, lowerOnlyPriority, requestIdOf, serverTiming } from "./request.js";
import { resolveOptions } from "./resolve-options.js";

const options = resolveOptions({ priorities: { interactive: {}, standard: {}, batch: {} } });

describe("lowerOnlyPriority", () => {
  it("lets a header lower the priority but never raise it", () => {
    expect(lowerOnlyPriority(options, undefined)).toBe("interactive");
    expect(lowerOnlyPriority(options, "batch")).toBe("batch");
    expect(lowerOnlyPriority(options, " Batch ")).toBe("batch");
    expect(lowerOnlyPriority(options, "interactive", "standard")).toBe("standard");
    expect(lowerOnlyPriority(options, "batch", "standard")).toBe("batch");
  });

  it("rejects an unknown value with INVALID_PRIORITY", () => {
    expect(() => lowerOnlyPriority(options, "urgent")).toThrow(
      expect.objectContaining({ code: "INVALID_PRIORITY" }),
    );
  });
});

describe("request helpers", () => {
  const headers = (values: Record<string, string>) => (name: string) => values[name];

  it("detects the official clients' retries", () => {
    expect(isRetryRequest(headers({ "x-stainless-retry-count": "1" }))).toBe(true);
    expect(isRetryRequest(headers({ "x-stainless-retry-count": "0" }))).toBe(false);
    expect(isRetryRequest(headers({}))).toBe(false);
  });

  it("takes a sane x-request-id and makes one up otherwise", () => {
    expect(requestIdOf(headers({ "x-request-id": "abc-1" }))).toBe("abc-1");
    const made = requestIdOf(headers({ "x-request-id": "bad id\n" }));
    expect(made).toMatch(/^req-/);
    expect(requestIdOf(headers({}))).not.toBe(made);
  });

  it("passes on only a sane x-request-id", () => {
    expect(givenRequestId(headers({ "x-request-id": "abc-1" }))).toBe("abc-1");
    expect(givenRequestId(headers({ "x-request-id": "bad id\n" }))).toBeUndefined();
    expect(givenRequestId(headers({ "x-request-id": "x".repeat(129) }))).toBeUndefined();
    expect(givenRequestId(headers({}))).toBeUndefined();
  });

  it("formats Server-Timing", () => {
    expect(serverTiming(12.345)).toBe("queue;dur=12.3");
  });
});

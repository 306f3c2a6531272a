import { describe, expect, it } from "vitest";
import { backoffMs, isRetryableStatus, retryAfterMs } from "./retry.js";

describe("retry rules", () => {
  it("retries 429 and 5xx only", () => {
    expect([429, 500, 502, 503, 599].every(isRetryableStatus)).toBe(true);
    expect([200, 400, 401, 404, 409, 422, 600].some(isRetryableStatus)).toBe(false);
  });

  it("reads retry-after-ms first, then Retry-After as seconds or a date", () => {
    expect(retryAfterMs({ "retry-after-ms": "1500", "retry-after": "9" }, 0)).toBe(1500);
    expect(retryAfterMs({ "Retry-After": "2" }, 0)).toBe(2000);
    const wall = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }, wall)).toBe(3000);
    expect(retryAfterMs({ "retry-after": "soon" }, 0)).toBeUndefined();
    expect(retryAfterMs({ "retry-after-ms": "-5" }, 0)).toBeUndefined();
    expect(retryAfterMs(undefined, 0)).toBeUndefined();
  });

  it("draws full jitter under an exponential ceiling capped at maxMs, never below the upstream's wait", () => {
    const policy = { maxAttempts: 5, baseMs: 100, maxMs: 1_000 };
    expect(backoffMs(policy, 1, () => 0.999)).toBe(99);
    expect(backoffMs(policy, 3, () => 0.5)).toBe(200);
    expect(backoffMs(policy, 10, () => 0.999)).toBe(999);
    expect(backoffMs(policy, 1, () => 0)).toBe(0);
    expect(backoffMs(policy, 1, () => 0, 5_000)).toBe(5_000);
  });
});

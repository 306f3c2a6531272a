import { describe, expect, it } from "vitest";
import { ErrorCode } from "./errors.js";
import { failedOutcome } from "./outcome.js";

describe("failedOutcome", () => {
  it("names run timeouts, aborts and closes, and calls every other failure failed", () => {
    expect(failedOutcome(ErrorCode.RUN_TIMEOUT)).toBe("run_timeout");
    expect(failedOutcome(ErrorCode.ABORTED)).toBe("aborted");
    expect(failedOutcome(ErrorCode.CLOSED)).toBe("closed");
    expect(failedOutcome(ErrorCode.QUEUE_FULL)).toBe("failed");
    expect(failedOutcome(undefined)).toBe("failed");
    expect(failedOutcome("toString")).toBe("failed"); // never an inherited property
  });
});

import { ErrorCode, SchedulerError } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { failureForStatus, rejectionFor } from "./rejection.js";

describe("rejectionFor", () => {
  it("answers a full queue with 429, both retry headers and an OpenAI-style JSON body", () => {
    const error = new SchedulerError(ErrorCode.QUEUE_FULL, "The batch queue is full", {
      retryAfterMs: 1_500,
    });
    const { status, headers, body } = rejectionFor(error);
    expect(status).toBe(429);
    expect(headers).toEqual({
      "retry-after": "2",
      "retry-after-ms": "1500",
      "content-type": "application/json; charset=utf-8",
    });
    expect(JSON.parse(body)).toEqual({
      error: {
        message: "The batch queue is full",
        type: "rate_limit_exceeded",
        code: "QUEUE_FULL",
        param: null,
      },
    });
  });

  it("answers an unknown priority with 400 and no retry headers", () => {
    const { status, headers } = rejectionFor(new SchedulerError(ErrorCode.INVALID_PRIORITY, "Unknown"));
    expect(status).toBe(400);
    expect(Object.keys(headers)).toEqual(["content-type"]);
  });

  it("does not leak the message of an error that is not the scheduler's", () => {
    const { status, body } = rejectionFor(new Error("secret"));
    expect(status).toBe(500);
    expect(body).not.toContain("secret");
  });
});

describe("failureForStatus", () => {
  it("counts 429 and 5xx as failed, with their status for the adaptive limit, and everything else as completed", () => {
    expect(failureForStatus(200)).toBeUndefined();
    expect(failureForStatus(400)).toBeUndefined();
    expect(failureForStatus(499)).toBeUndefined();
    expect(failureForStatus(500)).toBeInstanceOf(Error);
    expect(failureForStatus(503)?.message).toBe("The response was sent with status 503");
    expect(failureForStatus(503)?.status).toBe(503);
    expect(failureForStatus(429)?.status).toBe(429);
  });
});

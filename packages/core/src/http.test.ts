import { describe, expect, it } from "vitest";
import { ErrorCode, SchedulerError } from "./errors.js";
import { errorResponseFor, httpStatusFor } from "./http.js";

describe("httpStatusFor", () => {
  it("maps every code to one status", () => {
    expect(Object.values(ErrorCode).map((code) => [code, httpStatusFor(code)])).toEqual([
      ["QUEUE_FULL", 429],
      ["TENANT_QUEUE_FULL", 429],
      ["RATE_LIMITED", 429],
      ["QUEUE_TIMEOUT", 429],
      ["RUN_TIMEOUT", 504],
      ["ABORTED", 499],
      ["PREEMPTED", 503],
      ["CLOSED", 503],
      ["INVALID_OPTION", 400],
      ["INVALID_PRIORITY", 400],
      ["STORE_UNAVAILABLE", 503],
    ]);
  });
});

describe("errorResponseFor", () => {
  it("sends Retry-After in whole seconds and retry-after-ms, with an OpenAI-style body", () => {
    const error = new SchedulerError("QUEUE_FULL", "The batch queue is full", { retryAfterMs: 1_200 });
    expect(errorResponseFor(error)).toEqual({
      status: 429,
      headers: { "retry-after": "2", "retry-after-ms": "1200" },
      body: {
        error: {
          message: "The batch queue is full",
          type: "rate_limit_exceeded",
          code: "QUEUE_FULL",
          param: null,
        },
      },
    });
  });

  it("answers a preemption with 503, Retry-After: 1 and x-preempted", () => {
    const error = new SchedulerError("PREEMPTED", "Preempted", { retryAfterMs: 1_000 });
    const response = errorResponseFor(error);
    expect(response.status).toBe(503);
    expect(response.headers).toEqual({ "retry-after": "1", "retry-after-ms": "1000", "x-preempted": "1" });
    expect(response.body.error.code).toBe("PREEMPTED");
  });

  it("never leaks the message of an unexpected error", () => {
    const response = errorResponseFor(new Error("password=hunter2"));
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain("hunter2");
  });

  it("leaves a store's address and cause out of a STORE_UNAVAILABLE body", () => {
    const cause = new Error("connect ECONNREFUSED 10.0.0.5:6379");
    const message = "Redis at 10.0.0.5:6379 cannot be reached (connect ECONNREFUSED 10.0.0.5:6379)";
    const response = errorResponseFor(new SchedulerError("STORE_UNAVAILABLE", message, { cause }));
    expect(response.status).toBe(503);
    expect(response.body.error).toEqual({
      message: "The scheduler's store is unavailable",
      type: "server_unavailable",
      code: "STORE_UNAVAILABLE",
      param: null,
    });
  });

  it("keeps cause and name on the error", () => {
    const cause = new Error("root");
    const error = new SchedulerError("ABORTED", "aborted", { cause });
    expect(error.cause).toBe(cause);
    expect(error.name).toBe("SchedulerError");
  });
});

import { ErrorCode, SchedulerError } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { redactCredentials } from "./credentials.js";
import { rejectionFor } from "./rejection.js";

const token = `eyJhbGciOiJIUzI1NiJ9.${"x7Yz".repeat(220)}.sig_Q1`;
const headers: Record<string, string> = { authorization: `Bearer ${token}`, "x-api-key": "sk-live-123456" };
const header = (name: string) => headers[name];

describe("redactCredentials", () => {
  it("cuts a whole or truncated credential out of a message", () => {
    const message = `Expected \`tenant\` to be short, got \`Bearer ${token.slice(0, 200)}…\` (string)`;
    const redacted = redactCredentials(message, header);
    expect(redacted).not.toContain(token.slice(0, 20));
    expect(redacted).toContain("[redacted]");
    expect(redactCredentials("key sk-live-123456 refused", header)).toBe("key [redacted] refused");
  });

  it("leaves a message alone when the request carries no credential", () => {
    const message = `Unknown priority "urgent"`;
    expect(redactCredentials(message, () => undefined)).toBe(message);
    expect(redactCredentials(message, header)).toBe(message);
  });
});

describe("rejectionFor with the request's headers", () => {
  it("never echoes a credential in the body", () => {
    const error = new SchedulerError(ErrorCode.INVALID_OPTION, `Bad tenant \`${headers.authorization}\``);
    const { status, body } = rejectionFor(error, header);
    expect(status).toBe(400);
    expect(body).not.toContain(token.slice(30, 60));
    expect(JSON.parse(body)).toMatchObject({
      error: { code: "INVALID_OPTION", type: "invalid_request_error" },
    });
  });
});

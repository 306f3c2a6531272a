import { describe, expect, it } from "vitest";
import { HttpError } from "./errors.js";
import { parseGenerationRequest } from "./request-parse.js";

function rejection(endpoint: "chat" | "completion", text: string): HttpError {
  try {
    parseGenerationRequest(endpoint, text);
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("parseGenerationRequest", () => {
  it("reads a chat request", () => {
    const body = {
      model: "m",
      messages: [
        { role: "system", content: "12345678" },
        { role: "user", content: [{ type: "text", text: "abcd" }] },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 7,
      seed: 9,
    };
    expect(parseGenerationRequest("chat", JSON.stringify(body))).toEqual({
      endpoint: "chat",
      model: "m",
      stream: true,
      includeUsage: true,
      maxTokens: 7,
      promptTokens: 3,
      seed: 9,
      promptText: "12345678\nabcd",
    });
  });

  it("prefers max_completion_tokens and accepts a missing model", () => {
    const body = { messages: [{ role: "user", content: "hi" }], max_tokens: 9, max_completion_tokens: 4 };
    const request = parseGenerationRequest("chat", JSON.stringify(body));
    expect(request.maxTokens).toBe(4);
    expect(request.model).toBeUndefined();
    expect(request.stream).toBe(false);
  });

  it("counts every form of completion prompt", () => {
    const tokens = (prompt: unknown) =>
      parseGenerationRequest("completion", JSON.stringify({ prompt })).promptTokens;
    expect(tokens("abcdefgh")).toBe(2);
    expect(tokens(["abcd", "abcd"])).toBe(2);
    expect(tokens([1, 2, 3])).toBe(3);
    expect(tokens([[1, 2], [3]])).toBe(3);
  });

  it.each([
    ["chat", "{bad", "invalid_json", null],
    ["chat", "[1]", "invalid_json", "body"],
    ["chat", "{}", "missing_required_parameter", "messages"],
    ["chat", '{"messages":[]}', "invalid_value", "messages"],
    ["chat", '{"messages":["hi"]}', "invalid_value", "messages[0]"],
    ["completion", "{}", "missing_required_parameter", "prompt"],
    ["completion", '{"prompt":{}}', "invalid_value", "prompt"],
    ["completion", '{"prompt":"x","max_tokens":0}', "invalid_value", "max_tokens"],
    ["completion", '{"prompt":"x","max_tokens":1e9}', "invalid_value", "max_tokens"],
    [
      "chat",
      '{"messages":[{"role":"user"}],"max_completion_tokens":1000001}',
      "invalid_value",
      "max_completion_tokens",
    ],
    ["completion", '{"prompt":"x","stream":"yes"}', "invalid_value", "stream"],
    ["completion", '{"prompt":"x","model":5}', "invalid_value", "model"],
  ] as const)("answers 400 to %s %s", (endpoint, text, code, param) => {
    const error = rejection(endpoint, text);
    expect(error.status).toBe(400);
    expect(error.toBody().error).toMatchObject({ type: "invalid_request_error", code, param });
  });
});

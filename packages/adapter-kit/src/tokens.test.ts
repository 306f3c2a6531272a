import { describe, expect, it } from "vitest";
import { estimateTokens } from "./tokens.js";
import { UsageSniffer } from "./usage-sniffer.js";

describe("estimateTokens", () => {
  it("counts prompt characters / 4 plus max_tokens", () => {
    const body = { messages: [{ role: "user", content: "x".repeat(400) }], max_tokens: 50 };
    expect(estimateTokens(body, 1_024)).toBe(150);
  });

  it("reads content parts, completion prompts and responses input, and max_completion_tokens", () => {
    const parts = { messages: [{ role: "user", content: [{ type: "text", text: "y".repeat(80) }] }] };
    expect(estimateTokens({ ...parts, max_completion_tokens: 10 }, 1_024)).toBe(30);
    expect(estimateTokens({ prompt: ["abcd", "efgh"], max_tokens: 0 }, 1_024)).toBe(2);
    expect(estimateTokens({ input: "z".repeat(41), max_output_tokens: 1 }, 1_024)).toBe(12);
  });

  it("falls back to the cap without an output bound, and to 0 for what is not a body", () => {
    expect(estimateTokens({ messages: [] }, 1_024)).toBe(1_024);
    expect(estimateTokens({ messages: [], max_tokens: -3 }, 7)).toBe(7);
    expect(estimateTokens(undefined, 1_024)).toBe(0);
    expect(estimateTokens("text", 1_024)).toBe(0);
    expect(estimateTokens([1, 2], 1_024)).toBe(0);
  });
});

describe("UsageSniffer", () => {
  it("reads a JSON answer's usage, nested details included", () => {
    const sniffer = new UsageSniffer();
    const answer = {
      id: "c1",
      choices: [{ message: { content: 'a "usage": {"prompt_tokens": 1} in text' } }],
      usage: { prompt_tokens: 812, completion_tokens: 64, prompt_tokens_details: { cached_tokens: 0 } },
    };
    const text = JSON.stringify(answer);
    sniffer.feed(new TextEncoder().encode(text.slice(0, 40)));
    sniffer.feed(new TextEncoder().encode(text.slice(40)));
    expect(sniffer.usage()).toEqual({ inputTokens: 812, outputTokens: 64 });
  });

  it("reads the usage chunk that ends an SSE stream, in constant memory", () => {
    const sniffer = new UsageSniffer();
    for (let i = 0; i < 2_000; i++) {
      sniffer.feed(`data: {"choices":[{"delta":{"content":"tok${i}"}}],"usage":null}\n\n`);
    }
    sniffer.feed('data: {"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2000}}\n\n');
    sniffer.feed("data: [DONE]\n\n");
    expect(sniffer.usage()).toEqual({ inputTokens: 10, outputTokens: 2_000 });
  });

  it("reads responses-style counts and finds nothing where there is no usage", () => {
    const sniffer = new UsageSniffer();
    sniffer.feed('{"usage":{"input_tokens":5,"output_tokens":6}}');
    expect(sniffer.usage()).toEqual({ inputTokens: 5, outputTokens: 6 });
    const none = new UsageSniffer();
    none.feed('{"usage": "n/a", "text": "usage"}');
    expect(none.usage()).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { type GenerationPlan, generate, type TokenSink } from "./generate.js";
import { createLatencyModel } from "./latency-model.js";

const model = createLatencyModel({ ttftMs: 0, prefillMsPerToken: 0, tokenMs: 0 });

function plan(completionTokens: number): GenerationPlan {
  let n = 0;
  return {
    promptTokens: 4,
    prefillTokens: 4,
    completionTokens,
    finishReason: "length",
    delayFactor: 1,
    nextToken: () => {
      n += 1;
      return `t${n}`;
    },
  };
}

function recorder(onToken: (count: number) => void = () => {}) {
  const tokens: string[] = [];
  const finished: [string, number][] = [];
  const sink: TokenSink = {
    token: (text) => {
      tokens.push(text);
      onToken(tokens.length);
    },
    finish: (reason, count) => finished.push([reason, count]),
  };
  return { sink, tokens, finished };
}

describe("generate", () => {
  it("emits every planned token, then finishes once", async () => {
    const { sink, tokens, finished } = recorder();
    await generate(plan(5), model, () => 1, sink, new AbortController().signal);
    expect(tokens).toEqual(["t1", "t2", "t3", "t4", "t5"]);
    expect(finished).toEqual([["length", 5]]);
  });

  it("stops at once when the signal aborts, without finishing", async () => {
    const controller = new AbortController();
    const { sink, tokens, finished } = recorder((count) => {
      if (count === 3) controller.abort(new Error("gone"));
    });
    await expect(generate(plan(100), model, () => 1, sink, controller.signal)).rejects.toThrow("gone");
    expect(tokens).toHaveLength(3);
    expect(finished).toEqual([]);
  });

  it("reads the number of busy sequences at every step", async () => {
    const seen: number[] = [];
    const { sink } = recorder();
    const active = () => {
      seen.push(seen.length);
      return 1;
    };
    await generate(plan(4), model, active, sink, new AbortController().signal);
    expect(seen).toHaveLength(4);
  });
});
